// Actions that span actors (sagas). The initiating actor records its intent before it
// asks anyone, with a read-model row of kind `intent` (`pendingIntents`), and deletes the
// row with the event that ends the action (done, or undone after a refusal). Every step
// is idempotent (a named operation, or a check of the state it would create), so an
// action that a crash cut short is finished by running it again: `resumeIntents` does so
// for every pending intent, at start-up and on every daily tick.
import type { Entities } from './ports/entities';
import type { ProjectionRow, ReadModel } from './ports/store';
import { completeEnding } from './organization/ending';

export type PendingIntent =
  /** An organization ended; what follows (its adventurers freed, its quests, pledges, contracts and alliances) is not yet done. */
  | { kind: 'organization'; id: number; intent: 'ending'; day: number; how: 'bankruptcy' | 'dissolution' }
  /** An agent is founding an organization, or retiring (its organization is being told to take no more of its commands). */
  | { kind: 'agent'; id: number; intent: 'founding' | 'retirement'; day: number; organization_id: number }
  /** An adventurer is being hired, released, or is joining a party. */
  | { kind: 'adventurer'; id: number; intent: 'hire' | 'release' | 'joining'; day: number; organization_id: number }
  /** A market is trading with an organization. */
  | { kind: 'location'; id: string; intent: 'trade'; day: number; organization_id: number }
  /**
   * A quest is being posted or sponsored (an organization is setting the gold aside: `organization_id`),
   * is having a party sent (by `organization_id`), is being resolved or withdrawn (its members, its
   * place and its organizations are being told), or is returning an ended sponsor's pledge.
   */
  | { kind: 'quest'; id: number; intent: 'posting' | 'sponsorship' | 'dispatch' | 'resolution' | 'withdrawal' | 'pledge-return'; day: number; organization_id?: number }
  /** A contract is being fulfilled (goods and gold are moving between its parties) or rejected (the trust of each side cools). */
  | { kind: 'contract'; id: number; intent: 'fulfilment' | 'rejection'; day: number }
  /** A pair of organizations (`<lower id>-<higher id>`) is having an alliance proposed. */
  | { kind: 'relationship'; id: string; intent: 'proposal'; day: number }
  /** An alliance is being accepted or ended by a member: the trust of each side is moving. */
  | { kind: 'alliance'; id: number; intent: 'acceptance' | 'ending'; day: number }
  /** A world event is beginning: its settlement, roads, resources and quest are being brought in. */
  | { kind: 'world-event'; id: number; intent: 'beginning'; day: number };

const rowId = (kind: string, id: number | string) => `${kind}:${id}`;

/** The row that marks an actor's intent pending (an event row: it outlives no state). */
export const intentRow = (p: PendingIntent): ProjectionRow => ({ kind: 'intent', id: rowId(p.kind, p.id), doc: { ...p } });

/** The write that marks it ended. */
export const intentEnded = (kind: PendingIntent['kind'], id: number | string): ProjectionRow => ({ kind: 'intent', id: rowId(kind, id), deleted: true, doc: {} });

/**
 * Finishes every pending action, one after another. An actor with an intent is told to
 * resume it; the follow-up of an organization's end runs here, outside any actor, as the
 * organization ranks below everything it asks. An action that cannot be finished now (a
 * write failed again) stays pending for the next call. Answers how many are still pending.
 */
export function resumeIntents(entities: Entities, read: ReadModel, log: (line: string) => void = () => undefined, hosts: (kind: string, id: string | number) => boolean = () => true): Promise<number> {
  // One run at a time per process (start-up, a tick and a shard taken over may ask at once):
  // two runs finishing the same action side by side would each take its steps.
  const previous = running.get(entities) ?? Promise.resolve(0);
  const run = previous.catch(() => 0).then(() => resumeNow(entities, read, log, hosts));
  running.set(entities, run);
  return run;
}

const running = new WeakMap<object, Promise<number>>();

/** On many nodes each node finishes the intents of the entities it hosts (`hosts`). */
async function resumeNow(entities: Entities, read: ReadModel, log: (line: string) => void, hosts: (kind: string, id: string | number) => boolean): Promise<number> {
  let left = 0;
  for (const p of await read.list<PendingIntent>('pendingIntents')) {
    if (!hosts(p.kind, p.id)) continue;
    let problem: string | null = null;
    switch (p.kind) {
      case 'organization':
        problem = await completeEnding(entities, read, p.id, p.day, p.how);
        break;
      case 'agent': {
        const r = await entities.ask('agent', p.id, { type: 'resume' });
        if (!r.ok && r.refusal.status === 503) problem = r.refusal.detail;
        break;
      }
      case 'adventurer': {
        const r = await entities.ask('adventurer', p.id, { type: 'resume' });
        if (!r.ok && r.refusal.status === 503) problem = r.refusal.detail;
        break;
      }
      case 'location': {
        const r = await entities.ask('location', p.id, { type: 'resume' });
        if (!r.ok && r.refusal.status === 503) problem = r.refusal.detail;
        break;
      }
      case 'quest': {
        const r = await entities.ask('quest', p.id, { type: 'resume' });
        if (!r.ok && r.refusal.status === 503) problem = r.refusal.detail;
        break;
      }
      case 'contract': {
        const r = await entities.ask('contract', p.id, { type: 'resume' });
        if (!r.ok && r.refusal.status === 503) problem = r.refusal.detail;
        break;
      }
      case 'relationship': {
        const r = await entities.ask('relationship', p.id, { type: 'resume' });
        if (!r.ok && r.refusal.status === 503) problem = r.refusal.detail;
        break;
      }
      case 'alliance': {
        const r = await entities.ask('alliance', p.id, { type: 'resume' });
        if (!r.ok && r.refusal.status === 503) problem = r.refusal.detail;
        break;
      }
      case 'world-event': {
        const r = await entities.ask('world-event', p.id, { type: 'resume' });
        if (!r.ok && r.refusal.status === 503) problem = r.refusal.detail;
        break;
      }
    }
    if (problem !== null) {
      left += 1;
      log(`the ${p.intent} of ${p.kind} ${p.id} could not be finished yet (it is tried again): ${problem}`);
    }
  }
  return left;
}
