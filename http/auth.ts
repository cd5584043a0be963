// Keys: agent keys are random, shown once, and stored only as a SHA-256 hash (they carry
// 192 bits of randomness, so a plain hash is enough and lets a key be looked up).
import crypto from 'crypto';
import type { ReadModel } from '../actors/ports/store';
import { forbiddenError, unauthorized } from './errors';

export const AGENT_KEY_HEADER = 'x-agent-key';
export const ADMIN_KEY_HEADER = 'x-admin-key';
export const SPECTATOR_KEY_HEADER = 'x-spectator-key';
/** The longest header value read (a key header): a longer one is a 422. */
export const HEADER_MAX = 256;

export const newAgentKey = () => `wsk_${crypto.randomBytes(24).toString('base64url')}`;
export const newOperatorKey = () => crypto.randomBytes(24).toString('base64url');
// crypto.hash (Node 20.12) hashes a short string in a third of createHash's time; every agent request hashes its key.
export const hashKey: (key: string) => string = typeof crypto.hash === 'function'
  ? (key) => crypto.hash('sha256', key, 'hex')
  : (key) => crypto.createHash('sha256').update(key, 'utf8').digest('hex');

const requestKeyHashes = new WeakMap<object, { key: string; hash: string }>();

/**
 * The hash of the key `request` carries, made once a request: the rate limiter, the kept
 * answers, the caller's lookup and the Idempotency-Key's scope each need it.
 */
export function keyHashOf(request: object, key: string): string {
  const made = requestKeyHashes.get(request);
  if (made?.key === key) return made.hash;
  const hash = hashKey(key);
  requestKeyHashes.set(request, { key, hash });
  return hash;
}

export interface Caller {
  id: number;
  status: 'active' | 'retired';
  key: string;
  /** hashKey(key). */
  keyHash: string;
  /** The agent's name, for the history. */
  name?: string;
}

/** The agent whose key this is (`keyHash`: its hash, when already made). */
export async function resolveAgent(read: ReadModel, key: string | undefined, keyHash?: string): Promise<Caller> {
  if (!key) throw unauthorized('this endpoint needs the X-Agent-Key header with the key you received at registration');
  const hash = keyHash ?? hashKey(key);
  const id = await read.agentForKeyHash(hash);
  const agent = id === undefined ? undefined : await read.row<{ id: number; status: 'active' | 'retired'; name?: string }>('agent', id);
  if (!agent) throw unauthorized('the X-Agent-Key is not a known agent key');
  return { id: agent.id, status: agent.status, key, keyHash: hash, ...(agent.name === undefined ? {} : { name: agent.name }) };
}

export function requireActive(caller: Caller): void {
  if (caller.status !== 'active') throw forbiddenError('this agent has retired; its key can no longer change the world');
}

/** Checks an operator key against the hash of the right one, in constant time. */
export function checkOperatorKey(given: string | undefined, expectedHash: string, header: string): void {
  if (!given) throw unauthorized(`this endpoint needs the ${header} header`);
  const a = Buffer.from(hashKey(given));
  const b = Buffer.from(expectedHash);
  if (a.length !== b.length || !crypto.timingSafeEqual(a, b)) throw unauthorized(`the ${header} value is not valid`);
}
