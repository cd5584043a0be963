// Seeded randomness. Every draw is a pure function of WORLD_SEED and the names of what is
// being drawn (an entity, a day, a purpose), so a result never depends on the order in
// which actors happen to run, and two worlds with the same seed unfold alike.

/** A 32-bit hash of the parts (xmur3-style mixing). */
export function hash32(...parts: Array<string | number>): number {
  const s = parts.join('\u0001');
  let h = 1779033703 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    h = Math.imul(h ^ s.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  h = Math.imul(h ^ (h >>> 16), 2246822507);
  h = Math.imul(h ^ (h >>> 13), 3266489909);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A generator of floats in [0, 1) (mulberry32), started from the hash of the parts. */
export function rng(...parts: Array<string | number>): () => number {
  let a = hash32(...parts);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export const intBetween = (r: () => number, min: number, max: number): number => min + Math.floor(r() * (max - min + 1));
export const pick = <T>(r: () => number, items: readonly T[]): T => items[Math.floor(r() * items.length)];
