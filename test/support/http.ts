// Small helpers the HTTP tests share: founding an organization, reading one back, and
// asserting the status and body shape of api-conventions.md.
import assert from 'assert/strict';
import crypto from 'crypto';
import type { Answer, TestWorld } from './world';

/** Every item of a listing, walking its pages from `url` by their `Link: rel="next"` headers (each answer must be 200). */
export async function walkPages<T>(w: TestWorld, url: string, headers: Record<string, string> = {}): Promise<T[]> {
  const items: T[] = [];
  for (let next: string | undefined = url, pages = 0; next !== undefined; pages++) {
    const res: Response = await fetch(w.url + next, { headers });
    const body = await res.json() as T[];
    assert.equal(res.status, 200, JSON.stringify(body));
    items.push(...body);
    next = /^<([^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '')?.[1];
    assert.ok(pages < 1000, 'a listing that never ends');
  }
  return items;
}

/** Registers an agent and founds an organization for it; returns both. */
export async function foundOrg(w: TestWorld, name: string, kind = 'merchant company', locationId?: string) {
  const agent = await w.register();
  const r = await w.call('POST', '/api/organizations', { key: agent.key, body: { name, kind, ...(locationId ? { location_id: locationId } : {}) } });
  assert.equal(r.status, 201, r.text);
  return { key: agent.key, agentId: agent.id, org: r.body as { id: number; treasury: number; location_id: string } };
}

/** A one-day construction project at greenhollow that opens an establishment of the given kind (ProjectCreate's body). */
export const establishmentProject = (owner: number, title: string, kind: string) => ({
  owner_id: owner, title, kind: 'construction', description: `Building ${title} for the town.`, location_id: 'greenhollow',
  budget: 100, duration_days: 1, output_resource: null, output_quantity: 0, establishment_kind: kind,
});

export async function orgOf(w: TestWorld, id: number) {
  const r = await w.get(`/api/organizations/${id}`);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

export const historyCount = async (w: TestWorld): Promise<number> => (await w.get('/api/world')).body.counts.history_events;

/** The status, and for refusals (other than 422) a plain-words `detail`. */
export function expectStatus(r: Answer, status: number) {
  assert.equal(r.status, status, `expected ${status}, got ${r.status}: ${r.text}`);
  if (status >= 400 && status !== 422) assert.ok(typeof r.body.detail === 'string' && r.body.detail.length > 0, `a plain-words detail: ${r.text}`);
}

/** A 422 whose detail names the body field. */
export function expect422(r: Answer, field: string) {
  expectStatus(r, 422);
  assert.ok(Array.isArray(r.body.detail), r.text);
  assert.ok(r.body.detail.some((d: any) => d.loc[0] === 'body' && d.loc[1] === field), `a detail item at body.${field}: ${r.text}`);
}

/** A 422 in the body shape of the specification, with an item at exactly `loc`. */
export function expect422At(r: Answer, loc: Array<string | number>) {
  assert.equal(r.status, 422, `expected 422, got ${r.status}: ${r.text}`);
  assert.ok(Array.isArray(r.body.detail), r.text);
  for (const d of r.body.detail) {
    assert.ok(Array.isArray(d.loc) && typeof d.msg === 'string' && typeof d.type === 'string', `detail item shape: ${JSON.stringify(d)}`);
  }
  assert.ok(r.body.detail.some((d: any) => JSON.stringify(d.loc) === JSON.stringify(loc)), `a detail item at ${JSON.stringify(loc)}: ${r.text}`);
}

export const sha256 = (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** Every property name anywhere in a JSON value. */
export function propertyNames(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => propertyNames(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) { out.add(k); propertyNames(v, out); }
  }
  return out;
}

export interface LedgerLine { organization_id: number; flow: string; gold?: number; goods?: Record<string, number> }
export interface LedgerEvent { id: number; day: number; category: string; summary: string; organization_ids: number[]; data: { ledger?: LedgerLine[] } & Record<string, unknown> }

/** Every history event naming an organization, oldest first (paged back through GET /api/events?organization_id=). */
export async function eventsOf(w: TestWorld, organizationId: number): Promise<LedgerEvent[]> {
  const out: LedgerEvent[] = [];
  let before: number | undefined;
  for (;;) {
    const r = await w.get<LedgerEvent[]>(`/api/events?organization_id=${organizationId}&limit=100${before ? `&before_id=${before}` : ''}`);
    assert.equal(r.status, 200, r.text);
    out.push(...r.body);
    if (r.body.length < 100) return out.reverse();
    before = r.body[r.body.length - 1].id;
  }
}

/** An organization's ledger lines in its history, optionally of one flow. */
export async function ledgerOf(w: TestWorld, organizationId: number, flow?: string): Promise<LedgerLine[]> {
  return (await eventsOf(w, organizationId)).flatMap((e) => e.data.ledger ?? [])
    .filter((l) => l.organization_id === organizationId && (flow === undefined || l.flow === flow));
}

/** The gold of an ended organization's estate that passed to the world (a positive number). */
export const forfeitedGold = async (w: TestWorld, organizationId: number) =>
  -(await ledgerOf(w, organizationId, 'estate_forfeited')).reduce((n, l) => n + (l.gold ?? 0), 0);
