// Core rule 26 and part 5, rule 7: no agent key enters free text, which others read.
// Keys are kept only as hashes, so a key is recognised by what it looks like and then
// looked up by hash: the candidate tokens of a text are few, and each costs one indexed
// read (no scan of the agents). A key is recognised
// - verbatim (`wsk_` and 32 base64url characters), any agent's;
// - written otherwise: in other letter case, split by spaces, punctuation or line breaks,
//   with or without the `wsk_` prefix after such a split, through its folded form (letters
//   lowercased, everything but letters and digits dropped), whose hash is kept beside the
//   key's own (a credential of its own kind), kept at registration, and for an agent
//   registered before this check the first time its key is used (foldOlderKey);
// - the caller's own key in any such form, always (the caller sent it, so it is known).
// The operator keys too (X-Admin-Key, X-Spectator-Key): kept only as hashes and of any form
// when configured, they are recognised as a word of the text (split at white space, commas,
// semicolons, quotes and brackets, with the punctuation around it also taken off), each word
// of OPERATOR_KEY_MIN characters or more hashed once.
import { detailItem, type DetailItem } from '../codecs/report';
import type { ReadModel } from '../actors/ports/store';
import { hashKey, type Caller } from './auth';
import type { Services } from './services';

/** Letters lowercased, all but letters and digits dropped, without the `wsk` prefix. */
export const foldKey = (key: string) => key.replace(/^wsk_/i, '').toLowerCase().replace(/[^a-z0-9]/g, '');

/** The credential that finds a key by its folded form; its prefix keeps it apart from every key hash (64 hex digits). */
export const foldedKeyHash = (key: string) => `folded:${hashKey(foldKey(key))}`;

/** A key's body is 32 base64url characters; folded, the `-` and `_` among them drop out (almost never more than 8). */
const KEY_BODY = 32;
const FOLDED_MIN = 24;
/** Beyond this many candidate lookups in one request the text is refused rather than checked further. */
const MAX_LOOKUPS = 400;

const VERBATIM = /wsk_[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])/g;
const BARE = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32}(?![A-Za-z0-9_-])/g;

/** The hashes under which a key written in `text` would be found. */
export function candidateHashes(text: string): Set<string> {
  const hashes = new Set<string>();
  // Verbatim, also once spaces and line breaks are taken out.
  for (const t of [text, text.replace(/\s+/g, '')]) {
    for (const m of t.matchAll(VERBATIM)) { hashes.add(hashKey(m[0])); hashes.add(foldedKeyHash(m[0])); }
  }
  // A bare key body (the prefix left off).
  for (const m of text.matchAll(BARE)) { hashes.add(hashKey(`wsk_${m[0]}`)); hashes.add(foldedKeyHash(m[0])); }
  // The folded text: after every "wsk", the next 24 to 32 letters and digits.
  const folded = text.toLowerCase().replace(/[^a-z0-9]/g, '');
  for (let at = folded.indexOf('wsk'); at !== -1; at = folded.indexOf('wsk', at + 1)) {
    const rest = folded.slice(at + 3, at + 3 + KEY_BODY);
    for (let n = FOLDED_MIN; n <= rest.length; n++) hashes.add(`folded:${hashKey(rest.slice(0, n))}`);
    if (hashes.size > MAX_LOOKUPS) break;
  }
  return hashes;
}

/** Every string of a decoded body with its loc. */
function strings(value: unknown, loc: Array<string | number>, out: Array<[string, Array<string | number>]>): void {
  if (typeof value === 'string') out.push([value, loc]);
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, [...loc, i], out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) strings(v, [...loc, k], out);
}

/** The shortest word hashed to look for an operator key; a key shorter than this is weak anyway (README.md, "Quick start"). */
export const OPERATOR_KEY_MIN = 8;

const WORD_SEPARATORS = /[\s,;()<>[\]{}"'`]+/;

/**
 * Why a configured operator key would not be recognised in text (holdsOperatorKey), or null
 * when it would be: too short, or holding a character that splits words. Never says the key.
 */
export function unrecognisableOperatorKey(key: string): string | null {
  if (key.length < OPERATOR_KEY_MIN) return `it is shorter than ${OPERATOR_KEY_MIN} characters`;
  if (WORD_SEPARATORS.test(key)) return 'it holds a space, comma, semicolon, quote or bracket';
  return null;
}

/** Whether one of the words of `text` is an operator key, by its hash. */
export function holdsOperatorKey(text: string, operatorHashes: readonly string[]): boolean {
  if (text.length < OPERATOR_KEY_MIN) return false;
  const seen = new Set<string>();
  for (const word of text.split(WORD_SEPARATORS)) {
    for (const w of [word, word.replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '')]) {
      if (w.length < OPERATOR_KEY_MIN || seen.has(w)) continue;
      seen.add(w);
      if (operatorHashes.includes(hashKey(w))) return true;
    }
  }
  return false;
}

/**
 * Adds an `api_key_in_text` item for every string of `body` that holds a live agent key
 * (`callerKey`: the key of the agent sending it, if any) or an operator key (by the hashes
 * in `operatorHashes`).
 */
export async function findKeysInText(body: unknown, read: Pick<ReadModel, 'agentForKeyHash'>, callerKey: string | null, loc: Array<string | number>, out: DetailItem[], operatorHashes: readonly string[] = []): Promise<void> {
  const texts: Array<[string, Array<string | number>]> = [];
  strings(body, loc, texts);
  for (const [text, at] of texts) {
    if (holdsOperatorKey(text, operatorHashes)) out.push(detailItem(at, 'api_key_in_text', 'Text must not contain an operator key; it would be kept where others read it'));
  }
  const own = callerKey ? foldKey(callerKey) : null;
  // A key in any form leaves at least FOLDED_MIN characters (the caller's own: its folded length).
  const shortest = Math.min(FOLDED_MIN, own?.length ?? FOLDED_MIN);
  let lookups = 0;
  const known = new Map<string, boolean>();
  for (const [text, at] of texts) {
    if (text.length < shortest) continue; // a name, a resource, a side: nothing to look up
    if (own && text.toLowerCase().replace(/[^a-z0-9]/g, '').includes(own)) {
      out.push(detailItem(at, 'api_key_in_text', 'Text must not contain your API key; it would be kept where others read it'));
      continue;
    }
    let found = false;
    for (const hash of candidateHashes(text)) {
      if (!known.has(hash)) {
        if (++lookups > MAX_LOOKUPS) {
          out.push(detailItem(at, 'api_key_in_text', 'Text holds too many key-like tokens to check; shorten it'));
          return;
        }
        known.set(hash, (await read.agentForKeyHash(hash)) !== undefined);
      }
      if (known.get(hash)) { found = true; break; }
    }
    if (found) out.push(detailItem(at, 'api_key_in_text', 'Text must not contain an agent API key; it would be kept where others read it'));
  }
}

/** Hashes of the keys whose folded hash is known to be kept, so that each key is seen to at most once per process. */
const foldedKnown = new Set<string>();
const FOLDED_KNOWN_MAX = 200_000;

/**
 * A key registered before folded hashes were kept gets its folded hash the first time it
 * is used (the only time the key is seen again), in the background of the request.
 */
export function foldOlderKey(s: Services, caller: Caller): void {
  const seen = caller.keyHash;
  if (foldedKnown.has(seen)) return;
  if (foldedKnown.size >= FOLDED_KNOWN_MAX) foldedKnown.clear();
  foldedKnown.add(seen);
  const folded = foldedKeyHash(caller.key);
  void (async () => {
    if (await s.read.agentForKeyHash(folded) !== undefined) return;
    const r = await s.entities.ask<unknown, 'agent'>('agent', caller.id, { type: 'fold-key', key_hash: seen, folded_key_hash: folded });
    if (!r.ok) foldedKnown.delete(seen);
  })().catch(() => { foldedKnown.delete(seen); });
}
