// Answers of reads kept until the read model changes. A store that can tell when its read
// model last changed (`Store.readGeneration`: the embedded store counts its commits) lets
// a read answer again with the text it gave, as long as nothing was committed since; the
// first commit after it makes every kept answer stale at once. A 2xx of a write is given
// only after its commit, so a read that follows it is computed afresh. Cassandra on one node
// counts the batches it sends, as it is the only writer of its world; on many nodes other
// processes change the read model too, that store has no generation, and nothing is kept.

/** An answer already in JSON: sent as it is (server.ts's JSON formatter). */
export class JsonText {
  /** The text gzipped, made the first time a client that takes gzip asked for it again, or, for a FixedJson, first asked for it (compression.ts). */
  gzip?: Buffer;
  /** Whether it was sent before: a kept answer asked for again, or a page whose rows the store kept across commits. */
  sent = false;

  constructor(readonly text: string) {}
}

/**
 * An answer that never changes while the process runs (the rulebook): made once, kept
 * across generations of the read model, and gzipped from its first request on, for every
 * client that takes gzip.
 */
export class FixedJson extends JsonText {}

export interface KeptAnswer {
  body: JsonText;
  /** The Link header of a page that has a next one. */
  link?: string;
}

/** The answers of one generation of the read model, at most `max` of them (the oldest go first). */
export class ReadCache {
  private generation: number | null = null;
  private readonly answers = new Map<string, KeptAnswer>();

  constructor(private readonly max = 2_000) {}

  /** The answer kept under `key` in this generation. */
  get(generation: number, key: string): KeptAnswer | undefined {
    if (generation !== this.generation) {
      this.answers.clear();
      this.generation = generation;
      return undefined;
    }
    return this.answers.get(key);
  }

  /** Keeps an answer computed in `generation` (computed from an older one, it is dropped). */
  put(generation: number, key: string, answer: KeptAnswer): void {
    if (generation !== this.generation) return;
    if (this.answers.size >= this.max) this.answers.delete(this.answers.keys().next().value!);
    this.answers.set(key, answer);
  }

  get size(): number {
    return this.answers.size;
  }
}
