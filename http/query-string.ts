// The query string of a request as restify's queryParser reads it (qs, its defaults), without
// qs's cost on the queries agents send. qs handles every form (brackets, repeated keys that
// become arrays, and arrays that overflow into objects) and normalises its options on every
// call; profiled under load, a cheap read with `?limit=30` spent about a tenth of its main
// thread in it (docs/performance.md, change 38). A query with no bracket and no repeated key
// (every query of the API's own links and documentation) is read here, as qs would read it;
// any other goes to qs itself.
import qs from 'qs';
import type { RequestHandler } from 'restify';

/** qs's own limit on the parameters it reads (its default): the rest are ignored. */
const PARAMETER_LIMIT = 1000;

/** A bracket, or a percent-escaped one (qs turns `%5B` and `%5D` into brackets before reading keys). */
const BRACKETS = /[[\]]|%5[bd]/i;

/** As qs's `utils.decode` for UTF-8: `+` is a space, and an escape that does not decode stays as it was. */
function decode(text: string): string {
  const spaced = text.indexOf('+') === -1 ? text : text.replace(/\+/g, ' ');
  if (spaced.indexOf('%') === -1) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** The parameters of a query string (without its `?`), as `qs.parse(query)` gives them. */
export function parseQuery(query: string): Record<string, unknown> {
  const parsed: Record<string, unknown> = {};
  if (query === '') return parsed;
  if (BRACKETS.test(query)) return qs.parse(query);
  for (const part of query.split('&', PARAMETER_LIMIT)) {
    const at = part.indexOf('=');
    const key = decode(at === -1 ? part : part.slice(0, at));
    // qs drops an empty key, and a key that names a property every object has (`constructor`,
    // `__proto__`), however often it comes.
    if (key === '' || Object.prototype.hasOwnProperty.call(Object.prototype, key)) continue;
    // A key given twice makes an array (or, past qs's array limit, an object): qs's to read.
    if (Object.prototype.hasOwnProperty.call(parsed, key)) return qs.parse(query);
    parsed[key] = at === -1 ? '' : decode(part.slice(at + 1));
  }
  return parsed;
}

/** Sets `req.query` from the request's query string, in place of restify's queryParser (with mapParams off). */
export const queryParser = (): RequestHandler => (req, _res, next) => {
  const query = req.getQuery();
  req.query = typeof query === 'string' ? parseQuery(query) : {};
  return next();
};
