// The shape of one endpoint. The route table (routes.ts) is the single source of truth:
// the server is built from it and GET /api/rules describes it.
import type * as t from 'io-ts';
import type { Field } from '../codecs/primitives';
import type { Caller } from './auth';
import type { Services } from './services';

export type Auth = 'none' | 'agent' | 'agent-read' | 'agent-optional' | 'admin' | 'spectator';

export interface Request<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The calling agent: set for 'agent', 'agent-read', and 'agent-optional' when a key was sent. */
  caller: Caller | null;
}

export interface Route<P = any, Q = any, B = any> {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  summary: string;
  auth: Auth;
  params?: Field<P>;
  query?: Field<Q>;
  body?: Field<B>;
  success: 200 | 201;
  handle(req: Request<P, Q, B>, services: Services): Promise<unknown> | unknown;
}

/** Declares a route with its codecs' types flowing into the handler. */
export function route<P = Record<string, never>, Q = Record<string, never>, B = undefined>(r: {
  method: Route['method'];
  path: string;
  summary: string;
  auth: Auth;
  params?: Field<P>;
  query?: Field<Q>;
  body?: Field<B>;
  success?: 200 | 201;
  handle(req: Request<t.TypeOf<Field<P>>, t.TypeOf<Field<Q>>, t.TypeOf<Field<B>>>, services: Services): Promise<unknown> | unknown;
}): Route<P, Q, B> {
  return { ...r, success: r.success ?? 200 };
}
