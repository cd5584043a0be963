// Which shard an entity belongs to. Every entity key (`<kind>:<id>`) maps to one of
// WORLD_SHARDS shards by a 32-bit FNV-1a hash; shard n is partition n of the command
// topic, so the node that Kafka assigns partition n hosts the actors of shard n.
// The number of shards is fixed for the life of a world: changing it moves entities
// between shards (see docs/operations.md).

export const DEFAULT_SHARDS = 32;

export function entityKey(kind: string, id: string | number): string {
  return `${kind}:${id}`;
}

/** FNV-1a over the UTF-16 code units of the key: stable across processes and versions. */
export function shardOf(kind: string, id: string | number, shards: number): number {
  const key = entityKey(kind, id);
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shards;
}

/** The shard of a persistence key (`<kind>:<id>`, as the region names its actors). */
export function shardOfKey(persistenceKey: string, shards: number): number {
  const at = persistenceKey.indexOf(':');
  return shardOf(persistenceKey.slice(0, at), persistenceKey.slice(at + 1), shards);
}
