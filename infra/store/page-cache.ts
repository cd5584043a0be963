// Pages of listings, as the store last read them, kept in memory until a commit may change
// them: beside the rows (row-cache.ts), by a store that learns of every commit of its read
// model before any write of it is acknowledged (the embedded store; Cassandra on one node).
// A page is read from the rows of one kind that its named query selects, in a span of ids
// (after its first id, through the row read beyond it to learn whether more follow). A
// committed write changes it only when its row is on the page, or lies in the span and is
// selected by the query now: a row can enter a page only by matching it. So the first page
// of a long listing (the quest board, a place's organizations) outlives the commits of a
// busy world, which write its newest rows, beyond the page. A commit whose rows cannot be
// told drops every page. At most `maxPages` pages and `maxChars` characters of documents are
// kept, the oldest going first.
import { compareIds, QUERIES, type ProjectionRow, type QueryName, type QuerySpec, type StoredRow } from '../../actors/ports/store';

/** What a committed write says of its row: its kind and id, the columns queries select by, or that it left. */
export type WrittenRow = Pick<ProjectionRow, 'kind' | 'id' | 'status' | 'location_id' | 'organization_id' | 'agent_id' | 'due_day' | 'deleted'>;

/** Whether the query `spec` (with its argument) selects a row with these columns (QuerySpec: a null column never matches), or may (a query by a document's field). */
export function selects(spec: QuerySpec, arg: string | number | undefined, row: WrittenRow): boolean {
  if (row.deleted) return false;
  // A query by a document's field: the write says only its row's columns, so it may.
  if (spec.field) return true;
  if (spec.status && !spec.status.includes(row.status as string)) return false;
  if (spec.by === 'due_by') return row.due_day !== null && row.due_day !== undefined && row.due_day <= Number(arg);
  if (spec.by) {
    const value = row[spec.by];
    return value !== null && value !== undefined && String(value) === String(arg);
  }
  return true;
}

interface KeptPage {
  kind: string;
  spec: QuerySpec;
  arg: string | number | undefined;
  afterId: string | undefined;
  /** The last row read (the one beyond the page when more follow); the span ends there only when the page is full. */
  throughId: string | undefined;
  ids: Set<string>;
  rows: readonly StoredRow[];
  chars: number;
}

export class PageCache {
  private readonly pages = new Map<string, KeptPage>();
  /** The keys of the pages of each kind, so that a commit's rows meet only the pages of their kind. */
  private readonly byKind = new Map<string, Set<string>>();
  private chars = 0;

  constructor(private readonly maxPages = 512, private readonly maxChars = 32_000_000) {}

  private static key(name: QueryName, arg: string | number | undefined, afterId: string | undefined, limit: number): string {
    // JSON, not a separator: an argument or a start from an address may hold any character.
    return JSON.stringify([name, arg ?? null, afterId ?? null, limit]);
  }

  /** The rows kept for this read; the same array each time, which no one may change. */
  get(name: QueryName, arg: string | number | undefined, afterId: string | undefined, limit: number): readonly StoredRow[] | undefined {
    return this.pages.get(PageCache.key(name, arg, afterId, limit))?.rows;
  }

  /** Keeps the rows just read for this page (frozen: every reader shares them), and gives them back. */
  keep(name: QueryName, arg: string | number | undefined, afterId: string | undefined, limit: number, rows: StoredRow[]): readonly StoredRow[] {
    const key = PageCache.key(name, arg, afterId, limit);
    this.drop(key);
    let chars = 0;
    for (const r of rows) { Object.freeze(r); chars += r.doc.length; }
    Object.freeze(rows);
    if (chars > this.maxChars) return rows;
    while (this.pages.size > 0 && (this.pages.size >= this.maxPages || this.chars + chars > this.maxChars)) this.drop(this.pages.keys().next().value!);
    const spec: QuerySpec = QUERIES[name];
    // A page shorter than asked for is the end of the listing: any row after its start may join it.
    const full = rows.length > 0 && rows.length === limit;
    this.pages.set(key, { kind: spec.kind, spec, arg, afterId, throughId: full ? rows[rows.length - 1].id : undefined, ids: new Set(rows.map((r) => r.id)), rows, chars });
    let keys = this.byKind.get(spec.kind);
    if (!keys) this.byKind.set(spec.kind, keys = new Set());
    keys.add(key);
    this.chars += chars;
    return rows;
  }

  /** A commit wrote (or may have written) these rows: the pages they may change go. */
  written(rows: Iterable<WrittenRow>): void {
    if (this.pages.size === 0) return;
    for (const row of rows) {
      const keys = this.byKind.get(row.kind);
      if (!keys) continue;
      const id = String(row.id);
      for (const key of keys) {
        const page = this.pages.get(key)!;
        if (page.ids.has(id) || (inSpan(id, page) && selects(page.spec, page.arg, row))) this.drop(key);
      }
    }
  }

  /** Writes whose rows cannot be told (a lost writer): every page goes. */
  clear(): void {
    this.pages.clear();
    this.byKind.clear();
    this.chars = 0;
  }

  get size(): number {
    return this.pages.size;
  }

  private drop(key: string): void {
    const page = this.pages.get(key);
    if (!page) return;
    this.pages.delete(key);
    const keys = this.byKind.get(page.kind)!;
    keys.delete(key);
    if (keys.size === 0) this.byKind.delete(page.kind);
    this.chars -= page.chars;
  }
}

/** Whether `id` lies after the page's start and, for a full page, through its last row read. */
function inSpan(id: string, page: Pick<KeptPage, 'afterId' | 'throughId'>): boolean {
  return (page.afterId === undefined || compareIds(id, page.afterId) > 0) && (page.throughId === undefined || compareIds(id, page.throughId) <= 0);
}
