// Idempotency-Key: a POST or PATCH sent with this header acts once. The first request
// under a key claims it in the store (IdempotencyStore, one atomic claim per key, on
// every store), acts, and stores its answer; the same key with the same request within
// 24 hours answers that first answer again (status and body) without acting; the same key
// with another request is refused (422). A key belongs to its caller: the hash of the
// agent's key, or the operator (admin, spectator), or "public" on routes without a key.
//
// Acting once also across a crash: every command the request sends carries a command id
// derived from the caller and the key (the actor applies each id once), and the ids the
// request takes from the store's sequences are noted in the claim, so a retry after the
// service stopped between the claim and the answer sends the same commands to the same
// entities. An answer that is not final (503: the world could not finish, or the store
// could not be reached) is not kept: the claim is given back and a retry may act.
//
// What the store keeps is hashed or encrypted: the record's key is a hash of the caller's
// scope and the Idempotency-Key; the answer and notes are encrypted (AES-256-GCM) under a
// key derived from the same two, so the store never holds an answer in clear (the one
// answer of POST /api/agents carries the new agent's api_key).
import crypto from 'crypto';
import type { CommandOptions, Entities } from '../actors/ports/entities';
import type { IdempotencyRecord, Store } from '../actors/ports/store';
import { detailItem, type DetailItem } from '../codecs/report';
import type { JsonSchema } from '../codecs/json-schema';
import { HttpError } from './errors';
import type { Auth } from './route';
import type { Services } from './services';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** The header of an answer given again: `true`. */
export const REPLAYED_HEADER = 'idempotent-replayed';
export const IDEMPOTENCY_KEY_MAX = 255;
/** How long an answer is remembered, from the first request. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a claim without an answer holds before a retry may take it over (an attempt that stopped part-way). */
export const IDEMPOTENCY_LEASE_MS = 60_000;
/** How long a request waits for a racing twin under the same key before it is told to try again (409). */
export const IDEMPOTENCY_WAIT_MS = 30_000;

const PRINTABLE = /^[\x20-\x7e]+$/;
/** A random (version 4) UUID, as RFC 9562 writes it. */
export const RANDOM_UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$';
const RANDOM_UUID = new RegExp(RANDOM_UUID_PATTERN);

/**
 * Whether a route takes only a random UUID as its Idempotency-Key: one without a caller's key
 * (registration), where the key alone guards the answer given again (see readIdempotencyKey).
 */
export const randomKeyOnly = (auth: Auth): boolean => auth === 'none';

/** The Idempotency-Key a route takes, as JSON Schema (the OpenAPI header, the MCP argument). */
export const idempotencyKeySchema = (auth: Auth): JsonSchema => (randomKeyOnly(auth)
  ? { type: 'string', format: 'uuid', pattern: RANDOM_UUID_PATTERN }
  : { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX, pattern: '^[\\x20-\\x7e]+$' });

/**
 * The Idempotency-Key of a request, or undefined without one; a 422 item in `problems` when it
 * does not fit. On a route without a caller's key (`unscoped`: registration) nothing but the
 * Idempotency-Key tells the first sender from anyone else who sends the same public body,
 * and the replayed answer holds the new agent's api_key: there it must be a random UUID.
 */
export function readIdempotencyKey(value: string | string[] | undefined, problems: DetailItem[], unscoped = false): string | undefined {
  if (value === undefined) return undefined;
  const key = Array.isArray(value) ? value.join(', ') : value;
  const loc = ['header', IDEMPOTENCY_HEADER];
  if (key.length === 0) {
    problems.push(detailItem(loc, 'string_too_short', 'String should have at least 1 character', key, { min_length: 1 }));
  } else if (key.length > IDEMPOTENCY_KEY_MAX) {
    problems.push(detailItem(loc, 'string_too_long', `String should have at most ${IDEMPOTENCY_KEY_MAX} characters`, undefined, { max_length: IDEMPOTENCY_KEY_MAX }));
  } else if (!PRINTABLE.test(key)) {
    problems.push(detailItem(loc, 'string_pattern_mismatch', 'An Idempotency-Key must be printable ASCII (characters 0x20 to 0x7E), for example a UUID', undefined, { pattern: '^[\\x20-\\x7e]{1,255}$' }));
  } else if (unscoped && !RANDOM_UUID.test(key)) {
    problems.push(detailItem(loc, 'string_pattern_mismatch', 'Without an agent key, the Idempotency-Key alone guards the answer given again (a new agent\'s api_key): it must be a random UUID (version 4), such as crypto.randomUUID() makes', undefined, { pattern: RANDOM_UUID_PATTERN }));
  } else {
    return key;
  }
  return undefined;
}

const sha256 = (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest();

/** JSON with object keys sorted, so two bodies that differ only in key order or spacing are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The request as the fingerprint sees it: the route, its path parameters, the query and the body. */
export interface RequestShape {
  method: string;
  route: string;
  params: unknown;
  query: unknown;
  /** The raw body text. */
  body: string;
}

export function fingerprintOf(r: RequestShape): string {
  let body: string;
  try {
    body = r.body.trim() === '' ? '' : canonical(JSON.parse(r.body));
  } catch {
    body = `raw:${r.body}`;
  }
  return sha256(canonical([r.method, r.route, r.params ?? {}, r.query ?? {}, body])).toString('hex');
}

/** One caller's Idempotency-Key: its record key in the store, its command ids and its encryption key. */
export class IdempotencyKey {
  readonly recordKey: string;
  private readonly base: string;
  private readonly secret: Buffer;

  constructor(scope: string, key: string) {
    this.base = `${scope}\n${key}`;
    this.recordKey = sha256(`record\n${this.base}`).toString('hex');
    this.secret = sha256(`answer\n${this.base}`);
  }

  /**
   * The command id of the request under this key in the window that ends at `expiresAt`:
   * a retry in the same window (also one taking over a stopped attempt) sends the same
   * ids; the same key sent after the window is a new request with new ids.
   */
  commandId(expiresAt: number): string {
    return `idem:${sha256(`command\n${expiresAt}\n${this.base}`).toString('hex').slice(0, 40)}`;
  }

  seal(text: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.secret, iv);
    const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return `${iv.toString('base64')}.${cipher.getAuthTag().toString('base64')}.${data.toString('base64')}`;
  }

  open(sealed: string): string {
    const [iv, tag, data] = sealed.split('.').map((p) => Buffer.from(p, 'base64'));
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.secret, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
  }
}

/** An answer as it is sent and remembered. */
export interface Answer {
  status: number;
  body: unknown;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const reused = (key: string) => new HttpError(422, [detailItem(['header', IDEMPOTENCY_HEADER], 'idempotency_key_reused',
  'This Idempotency-Key was already used in the last 24 hours for a different request (another method, path, query or body); send a new key for a new request, or the same request to get its first answer again', key)]);

/**
 * Runs `act` once for this key and request: claims the key, acts with `services` scoped to
 * it (command ids, noted ids), and remembers a final answer; or answers the remembered
 * one (`replayed`). `act` answers a 2xx or throws; an HttpError with a status below 500
 * is a final refusal and is remembered too. Anything else gives the claim back and is
 * thrown on.
 */
export async function actOnce(
  services: Services, key: IdempotencyKey, header: string, fingerprint: string,
  act: (scoped: Services) => Promise<Answer>, refusalBody: (e: HttpError) => unknown,
): Promise<Answer & { replayed: boolean }> {
  const store = services.store.idempotency;
  const owner = crypto.randomUUID();
  const started = Date.now();
  let pause = 25;
  let record: IdempotencyRecord;
  for (;;) {
    const now = services.now();
    const claim = await store.claim(key.recordKey, {
      fingerprint, owner, leaseUntil: now + IDEMPOTENCY_LEASE_MS, expiresAt: now + IDEMPOTENCY_TTL_MS, notes: null, answer: null,
    }, now);
    if (claim.taken) { record = claim.record; break; }
    if (claim.record.fingerprint !== fingerprint) throw reused(header);
    if (claim.record.answer !== null) return { ...(JSON.parse(key.open(claim.record.answer)) as Answer), replayed: true };
    // A twin is acting under this key right now: wait for its answer (or for its lease to run out).
    if (Date.now() - started > IDEMPOTENCY_WAIT_MS) {
      throw new HttpError(409, 'a request with this Idempotency-Key is still being handled; send it again shortly to get its answer');
    }
    await sleep(pause);
    pause = Math.min(pause * 2, 250);
  }

  const notes: Record<string, unknown> = record.notes ? JSON.parse(key.open(record.notes)) : {};
  const once = async <T>(name: string, make: () => Promise<T>): Promise<T> => {
    if (Object.prototype.hasOwnProperty.call(notes, name)) return notes[name] as T;
    const value = await make();
    notes[name] = value;
    if (!await store.note(key.recordKey, owner, key.seal(JSON.stringify(notes)), services.now())) {
      throw new HttpError(503, 'the world could not finish this action in time; read the current state before trying again');
    }
    return value;
  };
  let answer: Answer;
  try {
    answer = await act(scope(services, key.commandId(record.expiresAt), once));
  } catch (e) {
    if (e instanceof HttpError && e.status < 500) {
      answer = { status: e.status, body: refusalBody(e) };
    } else {
      await store.release(key.recordKey, owner).catch(() => undefined);
      throw e;
    }
  }
  // The action is done (or refused) whether or not its answer can be kept: a retry that
  // finds no answer acts again under the same command ids and gets the same answer.
  await store.complete(key.recordKey, owner, key.seal(JSON.stringify(answer)), services.now()).catch(() => undefined);
  return { ...answer, replayed: false };
}

/**
 * The services one request acts through under an Idempotency-Key: each command it sends
 * carries a command id derived from the key's (counted per entity and command type, so a
 * retry that reads another state and sends fewer or more commands still names each the
 * same), and each id it takes from a sequence is noted in the claim and taken again on a
 * retry.
 */
function scope(services: Services, commandId: string, once: Services['once']): Services {
  const counts = new Map<string, number>();
  const derive = (kind: string, id: string | number, command: unknown, options?: CommandOptions): CommandOptions => {
    if (options?.commandId) return options;
    const target = `${kind}:${id}:${String((command as { type?: unknown } | null)?.type)}`;
    const n = (counts.get(target) ?? 0) + 1;
    counts.set(target, n);
    return { ...options, commandId: `${commandId}/${target}#${n}` };
  };
  const inner = services.entities;
  const entities: Entities = {
    ask: ((kind: string, id: string | number, command: unknown, timeoutMs?: number, options?: CommandOptions) =>
      inner.ask(kind as never, id, command as never, timeoutMs, derive(kind, id, command, options))) as Entities['ask'],
    tell: ((kind: string, id: string | number, command: unknown, options?: CommandOptions) =>
      inner.tell(kind as never, id, command as never, derive(kind, id, command, options))) as Entities['tell'],
  };
  const taken = new Map<string, number>();
  const store = new Proxy(services.store, {
    get(target, prop) {
      if (prop === 'nextId') {
        return (sequence: string) => {
          const n = (taken.get(sequence) ?? 0) + 1;
          taken.set(sequence, n);
          return once!(`id:${sequence}#${n}`, () => target.nextId(sequence));
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as Store;
  return { ...services, entities, store, once };
}
