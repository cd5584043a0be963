// Listings that grow without bound answer one page at a time (docs/decisions.md,
// "Listings come in pages"). The answer stays a JSON array; when more follows, a
// `Link: <...>; rel="next"` header gives the URL of the next page.
import { QUERIES, compareIds, compareNewest, type QueryName, type QuerySpec, type ReadModel, type StoredRow } from '../actors/ports/store';
import { JsonText } from './read-cache';

/** A row of an id-ordered listing. */
export type Listed = { id: string | number } & Record<string, unknown>;

/** One page of a listing, and the query fields that ask for the next one (null on the last page). */
export class Page<T = unknown> {
  constructor(readonly items: T[], readonly next: Record<string, string> | null) {}
}

/**
 * One page whose items are documents as the store keeps them: the answer is their JSON text
 * joined, not parsed only to be written again (a page is 500 rows by default, up to 1,000).
 */
export class JsonPage {
  /** `size`: how many items the page holds. */
  constructor(readonly body: JsonText, readonly next: Record<string, string> | null, readonly size: number) {}
}

/** The page of id-ordered `rows` after `after_id`, at most `limit` long; `idOf` reads a row's id (the listing's order). For listings filtered after they are read. */
export function pageOf<T>(rows: T[], query: { limit: number; after_id?: string }, idOf: (row: T) => string | number = (r) => (r as { id: string | number }).id): Page<T> {
  const after = query.after_id;
  const from = after === undefined ? rows : rows.filter((r) => compareIds(idOf(r), after) > 0);
  const items = from.slice(0, query.limit);
  return new Page(items, from.length > query.limit ? { after_id: String(idOf(items[items.length - 1])), limit: String(query.limit) } : null);
}

/**
 * The page of `rows` read one longer than `limit`, to learn whether more follow: the first
 * `limit` of them, and while more follow the query fields of the next page, which `cursor`
 * names from the page's last item.
 */
export function pageOfOneMore<T>(rows: T[], limit: number, cursor: (last: T) => Record<string, string>): Page<T> {
  const items = rows.slice(0, limit);
  return new Page(items, rows.length > limit ? { ...cursor(items[items.length - 1]), limit: String(limit) } : null);
}

/** `pageOfOneMore` of a listing in id order: the next page starts after the last item's id. */
export function pageAfterLastId<T extends { id: string | number }>(rows: T[], limit: number): Page<T> {
  return pageOfOneMore(rows, limit, (last) => ({ after_id: String(last.id) }));
}

/** The page of several id-ordered reads (each one longer than `limit`) merged in id order. */
export function mergedPageAfterLastId<T extends { id: number }>(parts: T[][], limit: number): Page<T> {
  return pageAfterLastId(parts.flat().sort((a, b) => a.id - b.id), limit);
}

/** A page of a named query read from the store and parsed (for answers made from its rows): only the page's rows are read, one more to learn whether more follow. */
export async function readPage<T extends { id: string | number }>(read: ReadModel, name: QueryName, query: { limit: number; after_id?: string }, arg?: string | number): Promise<Page<T>> {
  const rows = await read.listPage<T>(name, arg, query.after_id, query.limit + 1);
  return pageAfterLastId(rows, query.limit);
}

/**
 * A page of a named query whose rows are answered as they are stored: only the page's rows
 * are read, one more to learn whether more follow, and none is parsed. The next page starts
 * after the last row's id (the listing's order).
 */
export async function readJsonPage(read: ReadModel, name: QueryName, query: { limit: number; after_id?: string }, arg?: string | number): Promise<JsonPage> {
  const rows = await read.listPageJson(name, arg, query.after_id, query.limit + 1);
  // The same rows as before (a page the store keeps): the same answer, its text and gzip made once.
  const made = pagesMade.get(rows);
  if (made) return made;
  const page = jsonPageOfOneMore(rows, query.limit);
  pagesMade.set(rows, page);
  return page;
}

/** The page of id-ordered rows read one longer than `limit`: the first `limit` of them as stored, and the next page's start while more follow. */
function jsonPageOfOneMore(rows: readonly StoredRow[], limit: number): JsonPage {
  const items = rows.slice(0, limit);
  return new JsonPage(new JsonText(`[${items.map((r) => r.doc).join(',')}]`),
    rows.length > limit ? { after_id: items[items.length - 1].id, limit: String(limit) } : null, items.length);
}

/**
 * A page of the rows of a named query that `keep` accepts, for a filter no named query
 * selects by (a reward's range, an establishment's kind, a place beside a status): the rows
 * are read in id order from after `after_id` (ReadModel.scanJson, a chunk at a time) only until
 * the page and one more are found, so the cost is the rows passed over, not the listing. Each row read is
 * parsed for `keep`; the answer carries the documents as stored.
 */
export async function readFilteredJsonPage(read: ReadModel, name: QueryName, query: { limit: number; after_id?: string }, arg: string | number | undefined, keep: (doc: any) => boolean): Promise<JsonPage> {
  return jsonPageOfOneMore((await scanMatching(read, name, arg, query.after_id, query.limit + 1, keep)).map((r) => r.row), query.limit);
}

/**
 * The first `want` rows of a named query after `afterId` (in id order) whose documents `keep`
 * accepts, each as stored and parsed: read only as far as they are found (ReadModel.scanJson).
 */
export async function scanMatching<T>(read: ReadModel, name: QueryName, arg: string | number | undefined, afterId: string | undefined, want: number, keep: (doc: T) => boolean): Promise<Array<{ row: StoredRow; doc: T }>> {
  const found: Array<{ row: StoredRow; doc: T }> = [];
  if (want <= 0) return found;
  for await (const chunk of read.scanJson(name, arg, afterId)) {
    for (const row of chunk) {
      const doc = JSON.parse(row.doc) as T;
      if (!keep(doc)) continue;
      found.push({ row, doc });
      if (found.length >= want) return found;
    }
  }
  return found;
}

/** The answer made of each page's rows, while the store keeps the rows (they are read for one query, so they make one answer). */
const pagesMade = new WeakMap<readonly StoredRow[], JsonPage>();

/**
 * A page of a listing read newest first (QuerySpec.newestBy) from the store, after skipping
 * `offset` rows: only the page's rows are read, one more to learn whether more follow, and
 * none is parsed. The next page skips the rows of this one too.
 */
export async function readNewestJsonPage(read: ReadModel, name: QueryName, query: { limit: number; offset: number }, arg?: string | number): Promise<JsonPage> {
  const rows = await read.listNewestJson(name, arg, query.offset, query.limit + 1);
  const items = rows.slice(0, query.limit);
  return new JsonPage(new JsonText(`[${items.map((r) => r.doc).join(',')}]`),
    rows.length > query.limit ? { offset: String(query.offset + query.limit), limit: String(query.limit) } : null, items.length);
}

/** One newest-first listing of a merge: its name and argument, and which of its documents count (all when absent). */
export interface NewestSource { name: QueryName; arg?: string | number; keep?: (doc: any) => boolean }

/**
 * A page of several newest-first listings merged into one (an agent's inbox: each of its
 * organizations' letters received and messages sent), newest first (compareNewest), a row
 * found in two of them counted once, after skipping `offset` rows. Each listing is read a
 * chunk at a time from its newest, only as far as the page needs; only the rows read are
 * parsed (for their day, and for `keep`).
 */
export async function readNewestMergedJsonPage(read: ReadModel, sources: NewestSource[], query: { limit: number; offset: number }): Promise<JsonPage> {
  const want = query.offset + query.limit + 1;
  const streams = sources.map((source) => new NewestStream(read, source, Math.min(want, 1_000)));
  const merged: StoredRow[] = [];
  const seen = new Set<string>();
  while (merged.length < want) {
    let first: NewestStream | null = null;
    for (const stream of streams) {
      const head = await stream.head();
      if (head && (first === null || compareNewest(head, (await first.head())!) < 0)) first = stream;
    }
    if (first === null) break;
    const row = first.take();
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    merged.push({ id: row.id, doc: row.doc });
  }
  const items = merged.slice(query.offset, query.offset + query.limit);
  return new JsonPage(new JsonText(`[${items.map((r) => r.doc).join(',')}]`),
    merged.length > query.offset + query.limit ? { offset: String(query.offset + query.limit), limit: String(query.limit) } : null, items.length);
}

/** The rows of one newest-first listing that a merge has read and not yet taken, read `chunk` at a time. */
class NewestStream {
  private rows: Array<{ id: string; doc: string; day: number }> = [];
  private next = 0;
  private readAt = 0;
  private ended = false;
  private readonly field: string;

  constructor(private readonly read: ReadModel, private readonly source: NewestSource, private readonly chunk: number) {
    const field = (QUERIES[source.name] as QuerySpec).newestBy;
    if (!field) throw new Error(`query ${source.name} is not listed newest first`);
    this.field = field;
  }

  /** Its newest row not yet taken, or undefined once it has none. */
  async head(): Promise<{ id: string; doc: string; day: number } | undefined> {
    while (this.next === this.rows.length && !this.ended) {
      const got = await this.read.listNewestJson(this.source.name, this.source.arg, this.readAt, this.chunk);
      this.readAt += got.length;
      this.ended = got.length < this.chunk;
      this.rows = [];
      this.next = 0;
      for (const r of got) {
        const doc = JSON.parse(r.doc);
        if (!this.source.keep || this.source.keep(doc)) this.rows.push({ id: r.id, doc: r.doc, day: Number(doc[this.field]) });
      }
    }
    return this.rows[this.next];
  }

  take(): { id: string; doc: string; day: number } {
    return this.rows[this.next++];
  }
}

/** The URL of the next page: the request's own path and query, with the paging fields replaced. */
export function nextPageUrl(url: string, next: Record<string, string>): string {
  const [path, search = ''] = url.split('?', 2);
  const params = new URLSearchParams(search);
  for (const [k, v] of Object.entries(next)) params.set(k, v);
  return `${path}?${params.toString()}`;
}
