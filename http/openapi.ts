// The machine-readable API: GET /openapi.json (OpenAPI 3.1), generated from the route
// table, its codecs (codecs/json-schema.ts) and the answers' descriptions
// (codecs/responses.ts); and GET /docs, a reference page rendered from it by Swagger UI,
// whose files are served from the swagger-ui-dist package (nothing comes from the internet).
import fs from 'fs';
import path from 'path';
import type restify from 'restify';
import { rulebook } from '../actors/world/rulebook';
import { toJsonSchema, type JsonSchema, type ValueSchema } from '../codecs/json-schema';
import { ErrorBody, RESPONSES, ValidationErrorBody } from '../codecs/responses';
import { HEADER_MAX } from './auth';
import { FixedAnswer } from './compression';
import { idempotencyKeySchema, randomKeyOnly } from './idempotency';
import { STREAM_PATH, StreamQuery } from './stream';
import type { Auth, Route } from './route';

export const SECURITY_SCHEMES = {
  AgentKey: { type: 'apiKey', in: 'header', name: 'X-Agent-Key', description: 'The api_key an agent receives once, at registration (POST /api/agents).' },
  AdminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-Key', description: "The operator's key (WORLD_ADMIN_KEY, or generated and printed at start-up)." },
  SpectatorKey: { type: 'apiKey', in: 'header', name: 'X-Spectator-Key', description: "The spectators' key: opens every message, private ones included." },
} as const;

/**
 * The key header a route reads, also declared as a header parameter, optional (the
 * specification, part 5: "in the interface these header parameters are declared optional"):
 * a request without it gets 401 from the route, not 422 from its shape.
 */
const KEY_HEADER: Record<Auth, { name: string; description: string } | null> = {
  none: null,
  agent: { name: 'X-Agent-Key', description: SECURITY_SCHEMES.AgentKey.description },
  'agent-read': { name: 'X-Agent-Key', description: SECURITY_SCHEMES.AgentKey.description },
  'agent-optional': { name: 'X-Agent-Key', description: `${SECURITY_SCHEMES.AgentKey.description} Optional here.` },
  admin: { name: 'X-Admin-Key', description: SECURITY_SCHEMES.AdminKey.description },
  spectator: { name: 'X-Spectator-Key', description: SECURITY_SCHEMES.SpectatorKey.description },
};

/** Which key a route needs; an empty requirement in the list means the key may be left out. */
const SECURITY: Record<Auth, Array<Record<string, string[]>>> = {
  none: [],
  agent: [{ AgentKey: [] }],
  'agent-read': [{ AgentKey: [] }],
  'agent-optional': [{ AgentKey: [] }, {}],
  admin: [{ AdminKey: [] }],
  spectator: [{ SpectatorKey: [] }],
};

const AUTH_NOTE: Record<Auth, string> = {
  none: 'No key needed.',
  agent: 'Needs X-Agent-Key of an active agent.',
  'agent-read': 'Needs X-Agent-Key (a retired agent may read).',
  'agent-optional': 'X-Agent-Key is optional.',
  admin: 'Needs X-Admin-Key (operators).',
  spectator: 'Needs X-Spectator-Key (spectators).',
};

/** A route's name as an OpenAPI operationId and an MCP tool: `post_quests_accept`, `get_agents_by_agent_id`. */
export function operationName(r: Route): string {
  const segments = r.path.replace(/^\/api\//, '').split('/');
  const words = segments.flatMap((s, i) => {
    const param = /^\{(\w+)\}$/.exec(s);
    if (!param) return [s.replace(/-/g, '_')];
    // A parameter names the thing only at the end of the path: /quests/{id}/accept is post_quests_accept.
    return i === segments.length - 1 ? [`by_${param[1]}`] : [];
  });
  return [r.method.toLowerCase(), ...words].join('_');
}

/** The description every channel shows for a route: its summary and the key it needs. */
export const routeDescription = (r: Route) => `${r.summary} ${AUTH_NOTE[r.auth]}`;

const ERROR_RESPONSES = {
  Unauthorized: ['401', 'A required key (X-Agent-Key, X-Admin-Key, X-Spectator-Key) is missing or unknown.', 'Error'],
  Forbidden: ['403', 'The key is valid but may not do this: the agent does not control the organization named, or has retired.', 'Error'],
  NotFound: ['404', 'An identifier in the path, or a thing named in the body, does not exist.', 'Error'],
  Conflict: ['409', "The action conflicts with the world's state or a rule; nothing changed.", 'Error'],
  PayloadTooLarge: ['413', 'The request body is larger than 1 MiB.', 'Error'],
  ValidationFailed: ['422', 'Path, query, header or body input does not fit its shape; one item per problem, nothing changed.', 'ValidationError'],
  Unavailable: ['503', 'The world is starting, or its store cannot be reached; try again shortly.', 'Error'],
} as const;

/** The refusals a route can answer, besides its success. */
function errorStatuses(r: Route): Array<keyof typeof ERROR_RESPONSES> {
  const changes = r.method !== 'GET';
  const out: Array<keyof typeof ERROR_RESPONSES> = [];
  if (r.auth !== 'none') out.push('Unauthorized');
  if (r.auth === 'agent') out.push('Forbidden');
  if (r.params || r.query || r.body) out.push('NotFound');
  if (changes) out.push('Conflict', 'PayloadTooLarge');
  if (r.params || r.query || r.body || changes || r.auth !== 'none') out.push('ValidationFailed');
  out.push('Unavailable');
  return out;
}

/** The OpenAPI 3.1 document of the route table. */
export function openApiDocument(routes: Route[]): JsonSchema {
  const schemas: Record<string, JsonSchema> = {};
  const hoist = (name: string, schema: JsonSchema): JsonSchema => {
    const known = schemas[name];
    if (known && JSON.stringify(known) !== JSON.stringify(schema)) throw new Error(`two different schemas are named ${name}`);
    schemas[name] = schema;
    return { $ref: `#/components/schemas/${name}` };
  };
  const convert = (s: ValueSchema) => toJsonSchema(s, hoist);
  convert(ErrorBody);
  convert(ValidationErrorBody);

  const paths: Record<string, Record<string, unknown>> = {};
  const names = new Set<string>();
  for (const r of routes) {
    const operationId = operationName(r);
    if (names.has(operationId)) throw new Error(`two routes are named ${operationId}`);
    names.add(operationId);
    const answer = RESPONSES[`${r.method} ${r.path}`];
    if (!answer) throw new Error(`no response is described for ${r.method} ${r.path} (codecs/responses.ts)`);

    const parameters: JsonSchema[] = [];
    for (const [name, field] of Object.entries(r.params?.schema.properties ?? {})) {
      parameters.push({ name, in: 'path', required: true, schema: convert(field) });
    }
    for (const [name, field] of Object.entries(r.query?.schema.properties ?? {})) {
      parameters.push({ name, in: 'query', required: field.required !== false && field.default === undefined, schema: convert(field) });
    }
    const key = KEY_HEADER[r.auth];
    if (key) parameters.push({ name: key.name, in: 'header', required: false, description: key.description, schema: { type: 'string', maxLength: HEADER_MAX } });
    if (r.method !== 'GET') {
      parameters.push({
        name: 'Idempotency-Key', in: 'header', required: false,
        description: randomKeyOnly(r.auth)
          ? 'The same key and request within 24 hours answers the first answer again (the same api_key) and acts once; here, without an agent key, the Idempotency-Key alone guards that answer, so it must be a random (version 4) UUID (docs/idempotency.md).'
          : 'The same key and request within 24 hours answers the first answer again and acts once (docs/idempotency.md).',
        schema: idempotencyKeySchema(r.auth),
      });
    }
    const responses: Record<string, unknown> = {
      [String(r.success)]: { description: r.success === 201 ? 'Created.' : 'OK.', content: { 'application/json': { schema: convert(answer) } } },
    };
    for (const e of errorStatuses(r)) responses[ERROR_RESPONSES[e][0]] = { $ref: `#/components/responses/${e}` };

    const operation: Record<string, unknown> = {
      operationId,
      summary: r.summary,
      description: routeDescription(r),
      tags: [r.path.split('/')[2]],
      security: SECURITY[r.auth],
      ...(parameters.length ? { parameters } : {}),
      ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: convert(r.body.schema) } } } } : {}),
      responses,
    };
    (paths[r.path] ??= {})[r.method.toLowerCase()] = operation;
  }

  // The live feed is not a route of the table (it answers Server-Sent Events, not JSON), so it is described here.
  paths[STREAM_PATH] = {
    get: {
      operationId: 'get_events_stream',
      summary: 'The history as it is written, as Server-Sent Events: each event of GET /api/events, oldest first, with the same filters.',
      description: 'Each message is `id: <event id>` and `data: <the event as GET /api/events gives it>` (the default event type, `message`). A comment line (`: heartbeat`) keeps the connection open when nothing happens. '
        + 'To continue where you stopped, send the last id you received as the Last-Event-ID header (it wins over after_id); without either, the stream begins after the newest event. No key needed.',
      tags: ['events'],
      security: SECURITY.none,
      parameters: [
        ...Object.entries(StreamQuery.schema.properties ?? {}).map(([name, field]) => ({ name, in: 'query', required: false, schema: convert(field) })),
        { name: 'Last-Event-ID', in: 'header', required: false, description: 'The id of the last event received: the stream continues after it.', schema: { type: 'string', pattern: '^[0-9]+$' } },
      ],
      responses: {
        200: { description: 'The stream, open until the client leaves.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        422: { $ref: '#/components/responses/ValidationFailed' },
        503: { description: 'The node serves as many streams as it may (WORLD_STREAMS_MAX), or the world is starting; try again later.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    },
  };

  const errorResponses: Record<string, unknown> = {};
  for (const [name, [, description, schema]] of Object.entries(ERROR_RESPONSES)) {
    errorResponses[name] = { description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'worldsim',
      version: rulebook().version,
      description: 'A persistent fantasy world for autonomous agents. Register an agent (POST /api/agents), keep its api_key and send it as X-Agent-Key. '
        + 'GET /api/rules has the rulebook. LLM agents can also use the Model Context Protocol server at /mcp.',
    },
    servers: [{ url: '/' }],
    paths,
    components: { schemas, responses: errorResponses, securitySchemes: SECURITY_SCHEMES },
  };
}

/** The files of the reference page, from the swagger-ui-dist package. */
const DOCS_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>worldsim API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to an online validator.
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', validatorUrl: null, deepLinking: true });\n`;

/** Serves GET /openapi.json and the reference page at GET /docs. */
export function registerOpenApi(server: restify.Server, routes: Route[]): void {
  // Each answer is made when first asked for (the reference page's files are read then), and kept.
  const fixed = (path: string, answer: () => FixedAnswer) => {
    let made: FixedAnswer | undefined;
    server.get(path, (req: restify.Request, res: restify.Response, next: restify.Next) => {
      made ??= answer();
      made.send(req, res);
      next();
    });
  };
  // Built now: a route without a described answer stops the server from starting.
  const document = new FixedAnswer('application/json; charset=utf-8', JSON.stringify(openApiDocument(routes)));
  fixed('/openapi.json', () => document);
  fixed('/docs', () => new FixedAnswer('text/html; charset=utf-8', DOCS_PAGE));
  fixed('/docs/init.js', () => new FixedAnswer('text/javascript; charset=utf-8', DOCS_INIT));
  const folder = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  for (const [file, type] of Object.entries(DOCS_ASSETS)) {
    fixed(`/docs/${file}`, () => new FixedAnswer(type, fs.readFileSync(path.join(folder, file)), 'public, max-age=86400'));
  }
}
