// Rate limits: token buckets per client address, per agent key and, for registration, per
// address again. A bucket holds up to `burst` tokens and gains `perSecond` tokens a
// second; a request takes one token from each bucket it belongs to, or, when one of them
// has less than a whole token, is answered 429 with Retry-After (the seconds until that
// bucket has one) and takes nothing. The buckets live in this process: on many nodes
// each node limits what it serves.
import crypto from 'crypto';
import type restify from 'restify';
import { AGENT_KEY_HEADER, keyHashOf } from './auth';

export interface Rate {
  /** Tokens gained per second. */
  perSecond: number;
  /** The most tokens a bucket holds: the requests a quiet client may send at once. */
  burst: number;
}

/** Each limit, or null where it is off. */
export interface RateLimits {
  /** Every request from one client address (but /healthz and /metrics). */
  address: Rate | null;
  /** Every request carrying one X-Agent-Key (known or not). */
  key: Rate | null;
  /** POST /api/agents from one client address. */
  registration: Rate | null;
}

export type LimitName = keyof RateLimits;

/**
 * The defaults: far above what an agent needs (an LLM agent sends a few requests a second
 * at most), low enough that one client cannot crowd out the others; registration is a
 * handful an hour a client needs, so a few a minute.
 */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  address: { perSecond: 20, burst: 100 },
  key: { perSecond: 5, burst: 30 },
  registration: { perSecond: 3 / 60, burst: 5 },
};

export interface Bucket {
  tokens: number;
  /** When `tokens` was counted (ms). */
  at: number;
}

/** The bucket as it stands at `now`: a new one is full. */
export function refill(bucket: Bucket | undefined, rate: Rate, now: number): Bucket {
  if (!bucket) return { tokens: rate.burst, at: now };
  const gained = (Math.max(0, now - bucket.at) / 1000) * rate.perSecond;
  return { tokens: Math.min(rate.burst, bucket.tokens + gained), at: now };
}

/** Seconds until the bucket holds a whole token (0 when it does). */
export function secondsUntilToken(bucket: Bucket, rate: Rate): number {
  return bucket.tokens >= 1 ? 0 : (1 - bucket.tokens) / rate.perSecond;
}

export type Verdict = { ok: true } | { ok: false; limit: LimitName; retryAfterSeconds: number };

/** Buckets kept before the full ones (the same as none) are swept away. */
const SWEEP_FROM = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private sweepAt = SWEEP_FROM;

  constructor(private readonly limits: RateLimits, private readonly now: () => number = () => Date.now()) {}

  /** Whether `limit` is on. */
  counts(limit: LimitName): boolean {
    return this.limits[limit] !== null;
  }

  /**
   * Takes one token from the bucket of each claim, or none when one of them is empty; then
   * says which limit refused and when to try again (the longest wait among the empty ones).
   */
  take(claims: Array<{ limit: LimitName; id: string }>): Verdict {
    const now = this.now();
    const active = claims.flatMap(({ limit, id }) => {
      const rate = this.limits[limit];
      if (!rate) return [];
      const key = `${limit}\0${id}`;
      return [{ limit, key, rate, bucket: refill(this.buckets.get(key), rate, now) }];
    });
    let refused: Verdict = { ok: true };
    for (const c of active) {
      const wait = secondsUntilToken(c.bucket, c.rate);
      if (wait > 0 && (refused.ok || wait > refused.retryAfterSeconds)) refused = { ok: false, limit: c.limit, retryAfterSeconds: wait };
    }
    if (!refused.ok) return refused;
    for (const c of active) this.buckets.set(c.key, { tokens: c.bucket.tokens - 1, at: now });
    if (this.buckets.size > this.sweepAt) this.sweep(now);
    return refused;
  }

  /** Forgets the buckets that have filled up again: a full bucket is what a new one would be. */
  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      const rate = this.limits[key.slice(0, key.indexOf('\0')) as LimitName];
      if (!rate || refill(bucket, rate, now).tokens >= rate.burst) this.buckets.delete(key);
    }
    this.sweepAt = Math.max(SWEEP_FROM, this.buckets.size * 2);
  }
}

const REFUSALS: Record<LimitName, string> = {
  address: 'too many requests from your address',
  key: 'too many requests with this X-Agent-Key',
  registration: 'too many registrations from your address',
};

/**
 * An MCP tool call is sent on by the server to itself over loopback (http/mcp.ts), so the
 * relayed request comes from the server's own address. It carries a token this process made
 * at start and the caller's address: its address and key were counted once, on the /mcp
 * request; a registration is counted against the caller's address. Without this every MCP
 * agent shared one address's limits, and one could block registration for all.
 */
export const RELAY_HEADER = 'x-worldsim-relay';
export const RELAY_FOR_HEADER = 'x-worldsim-relay-for';
/** A fresh token for the relay of this process: random, never shown or logged. */
export const relayToken = (): string => crypto.randomBytes(24).toString('base64url');

function relayedFor(req: restify.Request, token: string | undefined): string | null {
  const given = req.headers[RELAY_HEADER];
  if (token === undefined || typeof given !== 'string' || given.length !== token.length) return null;
  if (!crypto.timingSafeEqual(Buffer.from(given), Buffer.from(token))) return null;
  const address = req.headers[RELAY_FOR_HEADER];
  return typeof address === 'string' && address !== '' ? address : 'unknown';
}

/** Paths no limit applies to: the health check and the metrics scrape. */
const UNLIMITED_PATHS = new Set(['/healthz', '/metrics']);

const isRegistration = (req: restify.Request) => req.method === 'POST' && /^\/api\/agents\/?$/.test(req.getPath());

/**
 * The limits as a restify handler (`use`: it runs once a route matched, before the
 * route's handler). A refused request is answered 429 `{"detail": "..."}` with
 * Retry-After in whole seconds, before anything reads it. A path no route serves is
 * answered 404 by restify without reaching the world, and is not limited.
 */
export function rateLimitHandler(limiter: RateLimiter, refused: (limit: LimitName) => void = () => undefined, relay?: string): restify.RequestHandler {
  return (req, res, next) => {
    if (UNLIMITED_PATHS.has(req.getPath())) return next();
    const relayed = relayedFor(req, relay);
    const claims: Array<{ limit: LimitName; id: string }> = [];
    if (relayed !== null) {
      // An MCP tool call: counted on its /mcp request already, but for a registration.
      if (isRegistration(req)) claims.push({ limit: 'registration', id: relayed });
      if (claims.length === 0) return next();
    } else {
      const address = req.socket.remoteAddress ?? 'unknown';
      claims.push({ limit: 'address', id: address });
      if (isRegistration(req)) claims.push({ limit: 'registration', id: address });
    }
    const key = req.headers[AGENT_KEY_HEADER];
    // Counted by a hash of the key: the limiter keeps no key.
    if (relayed === null && limiter.counts('key') && typeof key === 'string' && key !== '') claims.push({ limit: 'key', id: keyHashOf(req, key) });
    const verdict = limiter.take(claims);
    if (verdict.ok) return next();
    refused(verdict.limit);
    const seconds = Math.max(1, Math.ceil(verdict.retryAfterSeconds));
    res.header('Retry-After', String(seconds));
    res.send(429, { detail: `${REFUSALS[verdict.limit]}; try again in ${seconds} s` });
    return next(false);
  };
}
