// Test support: answers checked against the OpenAPI document (issue 12: "real answers of
// the HTTP suite match their response schemas"). Every test world checks every answer of
// a route of the table on its way back (test/support/world.ts), so the whole HTTP suite,
// on every store and on many nodes, holds the document to what the service answers.
import assert from 'assert/strict';
import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import { openApiDocument } from '../../http/openapi';
import { routes } from '../../http/routes';
import type { Route } from '../../http/route';
import type { Answer, TestWorld } from './world';

export type Doc = { openapi: string; paths: Record<string, Record<string, any>>; components: Record<string, any> };

/** Checks answers against the document: the schema of their route and status. */
export class AnswerChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly matchers: Array<{ route: Route; re: RegExp; params: number }>;
  /** What did not fit, the first case of each route and status. */
  private readonly misfits = new Map<string, string>();
  /** Routes with a success answer that fit, and every `route status` seen. */
  readonly succeeded = new Set<string>();
  readonly seen = new Map<string, number>();

  constructor(private readonly doc: Doc) {
    this.ajv.addSchema({ $id: 'openapi', components: doc.components });
    this.matchers = routes.map((route) => ({
      route, re: new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`), params: (route.path.match(/\{/g) ?? []).length,
    }));
  }

  routeOf(method: string, url: string): Route | undefined {
    const p = url.split('?')[0];
    return this.matchers.filter((m) => m.route.method === method && m.re.test(p)).sort((a, b) => a.params - b.params)[0]?.route;
  }

  /** The schema the document states for a route's answer with this status, or undefined when it states none. */
  validatorFor(route: Route, status: number): ValidateFunction | undefined {
    const key = `${route.method} ${route.path} ${status}`;
    if (!this.compiled.has(key)) {
      let response = this.doc.paths[route.path]?.[route.method.toLowerCase()]?.responses?.[String(status)];
      if (!response) return undefined;
      if (response.$ref) response = this.doc.components.responses[response.$ref.split('/').pop()];
      const schema = JSON.parse(JSON.stringify(response.content['application/json'].schema).replaceAll('"#/components/', '"openapi#/components/'));
      this.compiled.set(key, this.ajv.compile(schema));
    }
    return this.compiled.get(key);
  }

  /** What does not fit in an answer of `route`, or null when it fits. */
  problemWith(route: Route, url: string, answer: Answer): string | null {
    const validate = this.validatorFor(route, answer.status);
    if (!validate) return `${url}: the status is not in the document: ${answer.text.slice(0, 300)}`;
    if (!validate(answer.body)) return `${url}: ${this.ajv.errorsText(validate.errors)}: ${answer.text.slice(0, 300)}`;
    return null;
  }

  check(method: string, url: string, answer: Answer): void {
    const route = this.routeOf(method, url);
    if (!route) { this.misfits.set(`${method} ${url}`, 'no route of the table'); return; }
    const key = `${route.method} ${route.path} ${answer.status}`;
    this.seen.set(key, (this.seen.get(key) ?? 0) + 1);
    const problem = this.problemWith(route, url, answer);
    if (problem) {
      if (!this.misfits.has(key)) this.misfits.set(key, problem);
      return;
    }
    if (answer.status === route.success) this.succeeded.add(`${route.method} ${route.path}`);
  }

  get problems(): string[] {
    return [...this.misfits].map(([k, v]) => `${k}: ${v}`);
  }

  /** The same world, with every answer checked on its way back. */
  watch(w: TestWorld): TestWorld {
    const call: TestWorld['call'] = async (method, url, opts) => {
      const answer = await w.call(method, url, opts);
      this.check(method, url, answer);
      return answer;
    };
    return {
      ...w,
      call,
      get: (url, key) => call('GET', url, { key }),
      post: (url, body, key) => call('POST', url, { body, key }),
      async tick() {
        const r = await call('POST', '/api/tick', { admin: w.keys.admin });
        assert.equal(r.status, 200, r.text);
        return r.body.day;
      },
      async register(name) {
        const r = await call('POST', '/api/agents', { body: { name: name ?? 'Checked agent', model: 'test-model' } });
        assert.equal(r.status, 201, r.text);
        return { id: r.body.id, key: r.body.api_key };
      },
    };
  }
}

let shared: AnswerChecker | null = null;

/**
 * Checks one answer of a test world against the document built from the route table;
 * throws, naming the route and what did not fit, when it does not. Paths outside the
 * table (/healthz, /metrics, the page) are not the document's.
 */
export function assertConforms(method: string, url: string, answer: Answer): void {
  shared ??= new AnswerChecker(JSON.parse(JSON.stringify(openApiDocument(routes))) as Doc);
  const route = shared.routeOf(method, url);
  if (!route) return;
  const problem = shared.problemWith(route, url, answer);
  if (problem) throw new assert.AssertionError({ message: `the answer of ${method} ${url} does not fit the OpenAPI document: ${problem}` });
}
