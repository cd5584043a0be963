// Refusals as HTTP answers: {"detail": "..."} with the status of api-conventions.md.
import type { Refusal, Result } from '../actors/result';
import type { DetailItem } from '../codecs/report';

export class HttpError extends Error {
  constructor(readonly status: number, readonly detail: string | DetailItem[]) {
    super(typeof detail === 'string' ? detail : 'invalid input');
  }
}

export const unauthorized = (detail: string) => new HttpError(401, detail);
export const forbiddenError = (detail: string) => new HttpError(403, detail);
export const notFoundError = (detail: string) => new HttpError(404, detail);
export const conflictError = (detail: string) => new HttpError(409, detail);
export const invalid = (items: DetailItem[]) => new HttpError(422, items);

export const fromRefusal = (r: Refusal) => new HttpError(r.status, r.detail);

/** The value of an actor's answer, or the refusal thrown as an HTTP error. */
export function unwrap<T>(r: Result<T>): T {
  if (!r.ok) throw fromRefusal(r.refusal);
  return r.value;
}
