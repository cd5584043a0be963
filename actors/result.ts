// What an actor answers: a value, or a refusal that changed nothing. Refusals carry the
// HTTP status of api-conventions.md so the HTTP layer never has to guess.
// 503 is for the rare action the world could not finish (a timeout, a failed write):
// its outcome is unknown, so the caller is told to look before trying again.
export type RefusalStatus = 401 | 403 | 404 | 409 | 422 | 503;

export interface Refusal {
  status: RefusalStatus;
  detail: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const refuse = (status: RefusalStatus, detail: string): { refusal: Refusal } => ({ refusal: { status, detail } });

export const notFound = (detail: string) => refuse(404, detail);
export const conflict = (detail: string) => refuse(409, detail);
export const forbidden = (detail: string) => refuse(403, detail);

/** What a decider answers: the events a command produces, or a refusal. */
export type Decision<E> = { events: E[] } | { refusal: Refusal };

export const accept = <E>(...events: E[]): Decision<E> => ({ events });
export const isRefusal = <E>(d: Decision<E> | { refusal: Refusal }): d is { refusal: Refusal } => 'refusal' in d;
