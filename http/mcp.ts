// /mcp: a Model Context Protocol server (Streamable HTTP, stateless) for LLM agents. Its
// tools are the agents' routes of the route table, with input schemas from their codecs.
// A tool call is sent as an HTTP request to this very server on loopback, with the
// X-Agent-Key the MCP request carried: keys, decoding, refusals, idempotency and whatever
// else the server does to a request happen exactly as over HTTP, and the tool answers
// what the HTTP API answered.
import type { IncomingMessage } from 'http';
import type { AddressInfo } from 'net';
import type restify from 'restify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { rulebook } from '../actors/world/rulebook';
import { objectSchema, type JsonSchema } from '../codecs/json-schema';
import type { FieldSchema } from '../codecs/primitives';
import { detailItem } from '../codecs/report';
import { AGENT_KEY_HEADER } from './auth';
import { RELAY_FOR_HEADER, RELAY_HEADER } from './rate-limit';
import { IDEMPOTENCY_HEADER, idempotencyKeySchema, randomKeyOnly } from './idempotency';
import { operationName, routeDescription } from './openapi';
import type { Route } from './route';

/** The argument of a change's tool that is sent as its Idempotency-Key header. */
export const IDEMPOTENCY_ARGUMENT = 'idempotency_key';

/** Operators and spectators use HTTP with their own keys; MCP serves the agents. */
const AGENT_FACING = new Set<Route['auth']>(['none', 'agent', 'agent-read', 'agent-optional']);

export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  route: Route;
  /** Which arguments go into the path and the query; the rest make the body. */
  pathNames: string[];
  queryNames: string[];
}

/** One tool per agent-facing route: path parameters, query and body fields as flat arguments. */
export function mcpTools(routes: Route[]): McpTool[] {
  return routes.filter((r) => AGENT_FACING.has(r.auth)).map((r) => {
    const pathFields = r.params?.schema.properties ?? {};
    const queryFields = r.query?.schema.properties ?? {};
    const fields: Record<string, FieldSchema> = {};
    for (const [where, group] of [['path', pathFields], ['query', queryFields], ['body', r.body?.schema.properties ?? {}]] as const) {
      for (const [name, field] of Object.entries(group)) {
        if (fields[name]) throw new Error(`${r.method} ${r.path}: the ${where} field ${name} is also a path or query field`);
        fields[name] = field;
      }
    }
    const schema = objectSchema(fields);
    // A change may be retried safely under a key, as the HTTP API's Idempotency-Key header (docs/idempotency.md).
    if (r.method !== 'GET') {
      if (fields[IDEMPOTENCY_ARGUMENT]) throw new Error(`${r.method} ${r.path}: a field is named ${IDEMPOTENCY_ARGUMENT}`);
      schema.properties = {
        ...schema.properties,
        [IDEMPOTENCY_ARGUMENT]: {
          ...idempotencyKeySchema(r.auth),
          description: randomKeyOnly(r.auth)
            ? 'Optional: a random (version 4) UUID; the same call with the same key within 24 hours answers the first answer again and acts once (sent as the Idempotency-Key header).'
            : 'Optional: the same call with the same key within 24 hours answers the first answer again and acts once, so a call whose answer was lost can be sent again safely (sent as the Idempotency-Key header).',
        },
      };
    }
    return {
      name: operationName(r),
      description: `${routeDescription(r)} (HTTP ${r.method} ${r.path})`,
      inputSchema: { type: 'object', ...schema },
      route: r,
      pathNames: Object.keys(pathFields),
      queryNames: Object.keys(queryFields),
    };
  });
}

/** Where this server can be reached from itself. */
function loopbackOrigin(server: restify.Server): string {
  const a = server.address() as AddressInfo;
  const wildcard = a.address === '0.0.0.0' || a.address === '::';
  const host = wildcard ? (a.family === 'IPv6' ? '::1' : '127.0.0.1') : a.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${a.port}`;
}

/** Sends a tool call to the HTTP API and answers what it answered. */
async function callRoute(origin: string, tool: McpTool, args: Record<string, unknown>, agentKey: string | undefined, relay: { token: string; client: string }): Promise<CallToolResult> {
  const missing = tool.pathNames.filter((n) => args[n] === undefined || args[n] === null);
  if (missing.length) {
    // The HTTP API would not find an endpoint without them; say which, as its 422 would.
    const body = { detail: missing.map((n) => detailItem(['path', n], 'missing', 'Field required')) };
    return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: { status: 422, body }, isError: true };
  }
  const url = new URL(origin + tool.route.path.replace(/\{(\w+)\}/g, (_m, n: string) => encodeURIComponent(String(args[n]))));
  const bodyFields: Record<string, unknown> = {};
  let idempotencyKey: unknown;
  for (const [name, value] of Object.entries(args)) {
    if (tool.pathNames.includes(name)) continue;
    if (name === IDEMPOTENCY_ARGUMENT && tool.route.method !== 'GET') idempotencyKey = value;
    // An argument the route does not take goes where the HTTP API refuses it (a near miss
    // of a field is named): in the body of a route that has one, else in the query.
    else if (tool.queryNames.includes(name) || !tool.route.body) {
      if (value !== undefined && value !== null) url.searchParams.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    } else bodyFields[name] = value;
  }
  // The rate limits count the MCP caller, not this server's own address (http/rate-limit.ts).
  const headers: Record<string, string> = { [RELAY_HEADER]: relay.token, [RELAY_FOR_HEADER]: relay.client };
  if (idempotencyKey !== undefined && idempotencyKey !== null) headers[IDEMPOTENCY_HEADER] = typeof idempotencyKey === 'string' ? idempotencyKey : JSON.stringify(idempotencyKey);
  if (agentKey !== undefined) headers[AGENT_KEY_HEADER] = agentKey;
  let body: string | undefined;
  if (tool.route.body) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(bodyFields);
  }
  const res = await fetch(url, { method: tool.route.method, headers, body });
  const text = await res.text();
  let value: unknown = text;
  try { value = JSON.parse(text); } catch { /* kept as text */ }
  // The next page of a listing, which HTTP says in its Link header.
  const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
  return { content: [{ type: 'text', text }], structuredContent: { status: res.status, body: value, ...(next ? { next } : {}) }, isError: res.status >= 400 };
}

function readJson(req: IncomingMessage, maxBytes: number): Promise<{ ok: true; value: unknown } | { ok: false; status: number; message: string }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      if (tooLarge) return;
      size += c.length;
      if (size > maxBytes) {
        tooLarge = true;
        chunks.length = 0;
        resolve({ ok: false, status: 413, message: `the request body is larger than ${maxBytes} bytes` });
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (tooLarge) return;
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch (e) {
        resolve({ ok: false, status: 400, message: `Parse error: ${(e as Error).message}` });
      }
    });
    req.on('error', reject);
  });
}

const jsonRpcError = (res: restify.Response, status: number, code: number, message: string) => {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

/** Serves the MCP endpoint at /mcp (POST; GET and DELETE answer 405: there are no sessions to stream or end). */
export function registerMcp(server: restify.Server, routes: Route[], maxBodyBytes: number, log: (line: string) => void, relayToken: string): void {
  // Built now: two fields of one name in a route stop the server from starting.
  const byName = new Map(mcpTools(routes).map((t) => [t.name, t]));

  server.post('/mcp', async (req: restify.Request, res: restify.Response) => {
    const read = await readJson(req, maxBodyBytes);
    if (!read.ok) {
      if (read.status === 413) res.setHeader('connection', 'close');
      jsonRpcError(res, read.status, read.status === 413 ? ErrorCode.InvalidRequest : ErrorCode.ParseError, read.message);
      return;
    }
    const header = req.headers[AGENT_KEY_HEADER];
    const agentKey = Array.isArray(header) ? header[0] : header;
    const mcp = new Server(
      { name: 'worldsim', version: rulebook().version },
      {
        capabilities: { tools: {} },
        instructions: 'A persistent fantasy world. Register with post_agents (keep the api_key it answers, and connect again with it in the X-Agent-Key header), '
          + 'found an organization with post_organizations, then act. get_rules has the rulebook. Tools answer what the HTTP API answers: '
          + 'structuredContent.status is the HTTP status, the text its body.',
      },
    );
    mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [...byName.values()].map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    }));
    mcp.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = byName.get(request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool named ${request.params.name}; tools/list names them`);
      return callRoute(loopbackOrigin(server), tool, request.params.arguments ?? {}, agentKey, { token: relayToken, client: req.socket.remoteAddress ?? 'unknown' });
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => { void transport.close(); void mcp.close(); });
    try {
      await mcp.connect(transport);
      await transport.handleRequest(req, res, read.value);
    } catch (e) {
      log(`error on POST /mcp: ${(e as Error)?.stack ?? e}`);
      if (!res.headersSent) jsonRpcError(res, 500, ErrorCode.InternalError, 'internal error');
    }
  });
  for (const method of ['get', 'del'] as const) {
    server[method]('/mcp', (_req: restify.Request, res: restify.Response, next: restify.Next) => {
      res.setHeader('allow', 'POST');
      jsonRpcError(res, 405, ErrorCode.ConnectionClosed, 'this MCP server is stateless: send JSON-RPC messages with POST');
      next();
    });
  }
}
