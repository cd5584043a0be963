// Turns io-ts failures into the 422 body of the specification:
// {"detail": [{"loc": [...], "msg": "...", "type": "...", "input": ..., "ctx": {...}}]}
import type * as t from 'io-ts';
import type { Problem } from './primitives';

export type Place = 'body' | 'query' | 'path' | 'header';

export interface DetailItem {
  loc: Array<string | number>;
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export function detailItems(place: Place, errors: t.Errors): DetailItem[] {
  return errors.map((e) => {
    const loc: Array<string | number> = [place];
    for (const entry of e.context.slice(1)) {
      loc.push(/^\d+$/.test(entry.key) ? Number(entry.key) : entry.key);
    }
    let problem: Problem = { type: 'value_error', msg: 'Input is not valid' };
    if (e.message) {
      try { problem = JSON.parse(e.message) as Problem; } catch { problem = { type: 'value_error', msg: e.message }; }
    }
    const item: DetailItem = { loc, msg: problem.msg, type: problem.type };
    if (e.value !== undefined) item.input = e.value;
    if (problem.ctx) item.ctx = problem.ctx;
    return item;
  });
}

/** A single detail item made by hand (malformed JSON, a key in free text). */
export function detailItem(loc: Array<string | number>, type: string, msg: string, input?: unknown, ctx?: Record<string, unknown>): DetailItem {
  const item: DetailItem = { loc, msg, type };
  if (input !== undefined) item.input = input;
  if (ctx) item.ctx = ctx;
  return item;
}
