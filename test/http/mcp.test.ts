// /mcp over a real server, driven by the official SDK's own client (issue 12): the tools
// are the agents' routes of the table with their codecs' input schemas; an agent
// registers, founds an organization, trades and reads the world through them; the key
// travels in the X-Agent-Key header of the MCP request; answers and refusals are the
// HTTP API's own.
import assert from 'assert/strict';
import fs from 'fs';
import http from 'http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { routes } from '../../http/routes';
import { operationName } from '../../http/openapi';
import { RANDOM_UUID_PATTERN } from '../../http/idempotency';
import { startTestWorld, TEST_RATE_LIMITS, type TestWorld } from '../support/world';

interface ToolAnswer { status: number; body: any; text: string; isError: boolean }

describe('/mcp: the Model Context Protocol server for LLM agents', function () {
  this.timeout(120_000);
  let w: TestWorld;
  const clients: Client[] = [];

  /** An MCP client of this world, with the agent key in its requests' headers when given. */
  async function connect(key?: string): Promise<Client> {
    const client = new Client({ name: 'worldsim-test-agent', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${w.url}/mcp`), { requestInit: { headers: key ? { 'X-Agent-Key': key } : {} } });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
    const r = await client.callTool({ name, arguments: args }) as any;
    assert.equal(r.content.length, 1);
    assert.equal(r.content[0].type, 'text');
    return { status: r.structuredContent.status, body: r.structuredContent.body, text: r.content[0].text, isError: !!r.isError };
  }

  before(async () => { w = await startTestWorld({ seed: 'mcp' }); });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await w?.close();
    if (w) fs.rmSync(w.dataDir, { recursive: true, force: true });
  });

  it('lists one tool per agent-facing route, named and described from the table, with its codecs\' input schema', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const agentFacing = routes.filter((r) => !['admin', 'spectator'].includes(r.auth));
    assert.deepEqual(tools.map((t) => t.name).sort(), agentFacing.map(operationName).sort());
    assert.ok(!tools.some((t) => t.name === 'post_tick' || t.name === 'get_messages_investigation'), 'no operator or spectator tool');

    const register = tools.find((t) => t.name === 'post_agents')!;
    assert.match(register.description!, /Register an agent/);
    const { idempotency_key: registrationKey, ...registerFields } = register.inputSchema.properties as Record<string, any>;
    assert.deepEqual({ ...register.inputSchema, properties: registerFields }, {
      type: 'object',
      properties: { name: { type: 'string', minLength: 3, maxLength: 80 }, model: { type: 'string', minLength: 2, maxLength: 80 } },
      required: ['name', 'model'],
    });
    // A change takes an optional idempotency_key, sent as the Idempotency-Key header (a random UUID for a registration).
    assert.equal(registrationKey.pattern, RANDOM_UUID_PATTERN);
    assert.ok(tools.filter((t) => t.name.startsWith('post_')).every((t) => (t.inputSchema.properties as any).idempotency_key && !(t.inputSchema.required ?? []).includes('idempotency_key')));
    assert.ok(tools.filter((t) => t.name.startsWith('get_')).every((t) => !(t.inputSchema.properties as any)?.idempotency_key));
    const trade = tools.find((t) => t.name === 'post_trade')!;
    assert.deepEqual(trade.inputSchema.required, ['organization_id', 'resource', 'side', 'quantity']);
    assert.deepEqual(trade.inputSchema.properties!.side, { type: 'string', enum: ['buy', 'sell'] });
    const events = tools.find((t) => t.name === 'get_events')!;
    assert.deepEqual((events.inputSchema.properties as any).limit, { type: 'integer', minimum: 1, maximum: 100, default: 30 });
    assert.equal(events.inputSchema.required, undefined, 'every query field is optional');
    const accept = tools.find((t) => t.name === 'post_quests_accept')!;
    assert.deepEqual(accept.inputSchema.required, ['quest_id', 'organization_id'], 'path and body fields side by side');
  });

  it('lets an agent register, found an organization, trade and read the world, as the HTTP API does', async () => {
    const anonymous = await connect();
    const registered = await call(anonymous, 'post_agents', { name: 'Mira Ashvale', model: 'test-model' });
    assert.equal(registered.status, 201, registered.text);
    assert.equal(registered.isError, false);
    assert.equal(registered.body.name, 'Mira Ashvale');
    const key: string = registered.body.api_key;
    assert.match(key, /^wsk_/);
    assert.deepEqual(JSON.parse(registered.text), registered.body, 'the text is the HTTP body');

    const agent = await connect(key);
    const me = await call(agent, 'get_agents_me');
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.id, registered.body.id);

    const founded = await call(agent, 'post_organizations', { name: 'The Lantern Company', kind: 'merchant company', motto: 'Light for a fair price' });
    assert.equal(founded.status, 201, founded.text);
    assert.equal(founded.body.agent_id, registered.body.id);
    assert.equal(founded.body.location_id, 'emberfall', 'the codec default applies');
    const org = founded.body;

    const board = await call(agent, 'get_market');
    assert.equal(board.status, 200, board.text);
    const food = board.body.find((m: any) => m.resource === 'food');
    assert.equal(food.location_id, org.location_id, 'the key picks the board where the organization stands');

    const trade = await call(agent, 'post_trade', { organization_id: org.id, resource: 'food', side: 'buy', quantity: 2 });
    assert.equal(trade.status, 200, trade.text);
    assert.equal(trade.body.organization.holdings.food, 2);
    assert.equal(trade.body.organization.treasury, org.treasury - trade.body.trade.total);
    // What the tool did is what the world now holds, read over plain HTTP.
    const after = await w.get(`/api/organizations/${org.id}`);
    assert.equal(after.body.holdings.food, 2);
    assert.equal(after.body.treasury, trade.body.organization.treasury);

    const world = await call(agent, 'get_world');
    assert.equal(world.status, 200, world.text);
    assert.deepEqual(world.body, (await w.get('/api/world')).body);
    const history = await call(anonymous, 'get_events', { organization_id: org.id, limit: 5 });
    assert.equal(history.status, 200, history.text);
    assert.ok(history.body.some((e: any) => e.category === 'trade' || /food/.test(e.summary)), history.text);
    const one = await call(anonymous, 'get_organizations_by_organization_id', { organization_id: org.id });
    assert.deepEqual(one.body, after.body);
  });

  it('answers the HTTP API\'s refusals: 422 with the same items, 401 without a key, 403, 404 and 409, and a refused action changes nothing', async () => {
    const anonymous = await connect();
    const a = await w.register('Refused Rhea');
    const b = await w.register('Other Oskar');
    const orgA = (await w.post('/api/organizations', { name: 'Rhea House', kind: 'merchant company' }, a.key)).body;
    const orgB = (await w.post('/api/organizations', { name: 'Oskar House', kind: 'merchant company' }, b.key)).body;
    const agent = await connect(a.key);
    const eventsBefore = (await w.get('/api/world')).body.counts.history_events;

    const badTrade = { organization_id: orgA.id, resource: 'food', side: 'steal', quantity: 0 };
    const invalid = await call(agent, 'post_trade', badTrade);
    assert.equal(invalid.status, 422);
    assert.equal(invalid.isError, true);
    const overHttp = await w.post('/api/trade', badTrade, a.key);
    assert.equal(invalid.text, overHttp.text, 'the same 422 body as over HTTP');
    assert.deepEqual(invalid.body.detail.map((d: any) => d.loc), [['body', 'side'], ['body', 'quantity']]);

    const unauthenticated = await call(anonymous, 'post_organizations', { name: 'No Key House', kind: 'merchant company' });
    assert.equal(unauthenticated.status, 401);
    assert.equal(unauthenticated.text, (await w.post('/api/organizations', { name: 'No Key House', kind: 'merchant company' })).text);
    const unknownKey = await connect('wsk_not-a-real-key-at-all-000000000000');
    assert.equal((await call(unknownKey, 'get_agents_me')).status, 401);

    const notYours = await call(agent, 'post_trade', { organization_id: orgB.id, resource: 'food', side: 'buy', quantity: 1 });
    assert.equal(notYours.status, 403, notYours.text);
    assert.equal(typeof notYours.body.detail, 'string');
    const missing = await call(anonymous, 'get_quests_by_quest_id', { quest_id: 999999 });
    assert.equal(missing.status, 404, missing.text);
    const second = await call(agent, 'post_organizations', { name: 'Second House', kind: 'merchant company' });
    assert.equal(second.status, 409, second.text);
    const tooMuch = await call(agent, 'post_trade', { organization_id: orgA.id, resource: 'food', side: 'buy', quantity: 100000 });
    assert.equal(tooMuch.status, 409, tooMuch.text);
    const noPath = await call(agent, 'post_quests_accept', { organization_id: orgA.id });
    assert.equal(noPath.status, 422);
    assert.deepEqual(noPath.body.detail.map((d: any) => d.loc), [['path', 'quest_id']]);

    assert.equal((await w.get('/api/world')).body.counts.history_events, eventsBefore, 'no refusal wrote history');
    const orgAfter = (await w.get(`/api/organizations/${orgA.id}`)).body;
    assert.equal(orgAfter.treasury, orgA.treasury);
    assert.deepEqual(orgAfter.holdings, {});
  });

  it('refuses an argument a read does not take, as the HTTP API does (a near miss named), rather than dropping it', async () => {
    const client = await connect();
    const market = await call(client, 'get_market', { location: 'ironcrag' });
    assert.equal(market.status, 422, market.text);
    assert.match(JSON.stringify(market.body.detail), /location_id/);
    const events = await call(client, 'get_events', { limt: 2 });
    assert.equal(events.status, 422, events.text);
    assert.equal((await call(client, 'get_events', { limit: 2 })).status, 200);
  });

  it('retries a change safely under an idempotency_key, and says where a listing goes on', async () => {
    const anonymous = await connect();
    const uuid = '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';
    const first = await call(anonymous, 'post_agents', { name: 'Once Only', model: 'test-model', idempotency_key: uuid });
    const again = await call(anonymous, 'post_agents', { name: 'Once Only', model: 'test-model', idempotency_key: uuid });
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(again.body, first.body, 'the first answer again');
    assert.equal((await w.get<Array<{ name: string }>>('/api/agents')).body.filter((a) => a.name === 'Once Only').length, 1, 'one agent');
    const guessable = await call(anonymous, 'post_agents', { name: 'Guessed', model: 'test-model', idempotency_key: 'agent-registration' });
    assert.equal(guessable.status, 422, 'a registration takes a random UUID only');
    const agent = await connect(first.body.api_key);
    const org = await call(agent, 'post_organizations', { name: 'Retry House', kind: 'merchant company' });
    const message = { sender_id: org.body.id, recipient_id: null, body: 'Said once, whatever the retries.', idempotency_key: 'retry-1' };
    const sent = [await call(agent, 'post_messages', message), await call(agent, 'post_messages', message)];
    assert.deepEqual(sent.map((m) => m.status), [201, 201]);
    assert.equal(sent[1].body.id, sent[0].body.id, 'one message');
    // A page of a listing that goes on names the next page, as HTTP's Link header does.
    const page = await anonymous.callTool({ name: 'get_adventurers', arguments: { limit: 2 } }) as any;
    assert.equal(page.structuredContent.body.length, 2);
    assert.match(page.structuredContent.next, /\/api\/adventurers\?.*after_id=/);
  });

  it('refuses a tool it does not have as a protocol error, and serves only POST', async () => {
    const client = await connect();
    await assert.rejects(client.callTool({ name: 'post_tick', arguments: {} }), /no tool named post_tick/);
    const get = await fetch(`${w.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const garbled = await fetch(`${w.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc": ' });
    assert.equal(garbled.status, 400);
    assert.equal((await garbled.json()).error.code, -32700);
  });
});

describe('/mcp and the rate limits: a tool call counts against its caller, not the server that relays it', function () {
  this.timeout(120_000);
  let w: TestWorld;
  const clients: Client[] = [];
  // Two registrations at once, then one a minute: per caller's address.
  before(async () => { w = await startTestWorld({ seed: 'mcp-limits', rateLimits: { ...TEST_RATE_LIMITS, registration: { perSecond: 1 / 60, burst: 2 } } }); });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await w?.close();
  });

  /** fetch from a given loopback address (Node's fetch cannot choose its own), whole answers only: /mcp answers JSON. */
  const fetchFrom = (localAddress: string) => (url: string | URL, init?: RequestInit): Promise<Response> => new Promise((resolve, reject) => {
    const req = http.request(url, { method: init?.method ?? 'GET', headers: Object.fromEntries(new Headers(init?.headers).entries()), localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(new Response(res.statusCode === 202 || res.statusCode === 204 ? null : Buffer.concat(chunks), {
        status: res.statusCode, headers: Object.entries(res.headers).flatMap(([k, v]) => (v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((x) => [k, x] as [string, string]))),
      })));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init?.body === undefined || init?.body === null ? undefined : String(init.body));
  });

  async function registerFrom(client: Client, name: string): Promise<number> {
    const r = await client.callTool({ name: 'post_agents', arguments: { name, model: 'test-model' } }) as any;
    return r.structuredContent.status;
  }

  it('refuses a third registration from one MCP caller, and still registers another caller', async () => {
    const connectFrom = async (address: string) => {
      const client = new Client({ name: 'worldsim-test-agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${w.url}/mcp`), { fetch: fetchFrom(address) }));
      clients.push(client);
      return client;
    };
    const first = await connectFrom('127.0.0.4');
    assert.deepEqual([await registerFrom(first, 'First One'), await registerFrom(first, 'First Two'), await registerFrom(first, 'First Three')], [201, 201, 429]);
    const other = await connectFrom('127.0.0.5');
    assert.equal(await registerFrom(other, 'Other One'), 201, 'the first caller\'s registrations are not the other\'s');
    // A relay header made up by a client is no relay: its request counts against its own address.
    const forged = await fetch(`${w.url}/api/agents`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-worldsim-relay': 'made-up', 'x-worldsim-relay-for': '10.9.9.9' }, body: JSON.stringify({ name: 'Forged One', model: 'test-model' }) });
    assert.equal(forged.status, 201);
    const names = (await w.get<Array<{ name: string }>>('/api/agents')).body.map((a) => a.name);
    assert.deepEqual(['First One', 'First Two', 'Other One', 'Forged One'].filter((n) => names.includes(n)), ['First One', 'First Two', 'Other One', 'Forged One']);
    assert.equal(names.includes('First Three'), false);
  });
});
