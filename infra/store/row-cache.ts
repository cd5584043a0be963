// Rows of the entities table and agent ids of key hashes, as the main thread last read them,
// kept in memory until a commit changes them. Every write of those tables goes through the
// writer thread, and the main thread learns of each commit (SqliteStore.settle) with the
// writes it carried, before any of them is acknowledged: the kept copy is replaced or dropped
// in that same turn of the event loop. So a read after an acknowledged write sees it, as when
// every read went to SQLite; a read before that sees what SQLite held before the commit.
// Between the writer's commit and the main thread learning of it, a kept row is the one from
// before the commit while a listing read from SQLite already shows the new one; nothing has
// been acknowledged then, and an answer kept in that moment is dropped with its generation.
// Only what was read is kept (a write adds nothing: a day's tick writes every organization),
// at most `max` of each, the oldest going first.

/** A row's document as JSON text, by kind and id. */
export class RowCache {
  private readonly texts = new Map<string, string>();

  constructor(private readonly max = 10_000) {}

  get(kind: string, id: string): string | undefined {
    return this.texts.get(`${kind}\0${id}`);
  }

  has(kind: string, id: string): boolean {
    return this.texts.has(`${kind}\0${id}`);
  }

  /** Keeps a row as it was just read. */
  keep(kind: string, id: string, text: string): void {
    if (this.texts.size >= this.max) this.texts.delete(this.texts.keys().next().value!);
    this.texts.set(`${kind}\0${id}`, text);
  }

  /** A committed write of a row: its new document (null: the row was deleted) replaces a kept copy. */
  written(kind: string, id: string, text: string | null): void {
    const key = `${kind}\0${id}`;
    if (!this.texts.has(key)) return;
    if (text === null) this.texts.delete(key);
    else this.texts.set(key, text);
  }

  /** A write whose outcome is not known (a failed one, or a lost writer): its copy is dropped. */
  forget(kind: string, id: string): void {
    this.texts.delete(`${kind}\0${id}`);
  }

  clear(): void {
    this.texts.clear();
  }

  get size(): number {
    return this.texts.size;
  }
}
