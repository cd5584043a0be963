// The machine-readable API over a real server (issue 12): GET /openapi.json is a valid
// OpenAPI 3.1 document (checked by a maintained validator) with every route of the table,
// the codecs' bounds and defaults, the three key headers and the error shapes; real
// answers of a journey through every route and of random actions by several agents fit
// the schemas it states for their route and status; GET /docs renders it from files
// served by this server.
import crypto from 'crypto';
import assert from 'assert/strict';
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';
import fc from 'fast-check';
import { routes } from '../../http/routes';
import type { Route } from '../../http/route';
import { AgentCreate, EventsQuery } from '../../codecs/requests';
import { EconomyDriver, actionArbitrary } from '../support/economy-driver';
import { AnswerChecker, type Doc } from '../support/conformance';
import { startTestWorld, type TestWorld } from '../support/world';

/** The validator is an ES module; this suite is compiled to CommonJS. */
async function validateOpenApi(doc: unknown): Promise<{ valid: boolean; errors?: unknown }> {
  const entry = require.resolve('@seriousme/openapi-schema-validator');
  const load = new Function('url', 'return import(url)') as (url: string) => Promise<typeof import('@seriousme/openapi-schema-validator')>;
  const { Validator } = await load(pathToFileURL(entry).href);
  return new Validator().validate(doc as Record<string, unknown>);
}

describe('GET /openapi.json: the API as an OpenAPI 3.1 document', function () {
  this.timeout(300_000);
  let w: TestWorld;
  let doc: Doc;

  before(async () => {
    w = await startTestWorld({ seed: 'openapi' });
    const r = await w.get('/openapi.json');
    assert.equal(r.status, 200, r.text);
    doc = r.body;
  });
  after(async () => { await w?.close(); if (w) fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('is a valid OpenAPI 3.1 document', async () => {
    assert.equal(doc.openapi, '3.1.0');
    const result = await validateOpenApi(doc);
    assert.ok(result.valid, JSON.stringify(result.errors, null, 1));
  });

  it('the validator refuses a broken document (so the check above can fail)', async () => {
    const broken = structuredClone(doc);
    broken.paths['/api/events'].get.parameters[0].in = 'body'; // OpenAPI 3 has no body parameters
    assert.equal((await validateOpenApi(broken)).valid, false);
  });

  it('has every route of the table, and nothing else, with its summary and success answer', () => {
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)).sort();
    // And the live feed, which answers Server-Sent Events rather than JSON.
    assert.deepEqual(documented, [...routes.map((r) => `${r.method} ${r.path}`), 'GET /api/events/stream'].sort());
    const stream = doc.paths['/api/events/stream'].get;
    assert.ok(stream.responses['200'].content['text/event-stream'], 'the stream answers text/event-stream');
    assert.deepEqual(stream.parameters.map((p: { name: string; in: string }) => `${p.in} ${p.name}`).sort(),
      ['header Last-Event-ID', 'query after_id', 'query agent_id', 'query category', 'query organization_id']);
    for (const r of routes) {
      const op = doc.paths[r.path][r.method.toLowerCase()];
      assert.equal(op.summary, r.summary);
      assert.ok(op.responses[String(r.success)]?.content['application/json'].schema, `${r.method} ${r.path} describes its ${r.success} answer`);
    }
    const ids = routes.map((r) => doc.paths[r.path][r.method.toLowerCase()].operationId);
    assert.equal(new Set(ids).size, routes.length, 'every operationId is distinct');
  });

  it('states the three key headers as security schemes, and which routes need which', () => {
    assert.deepEqual(
      Object.fromEntries(Object.entries(doc.components.securitySchemes).map(([k, v]: [string, any]) => [k, `${v.type} ${v.in} ${v.name}`])),
      { AgentKey: 'apiKey header X-Agent-Key', AdminKey: 'apiKey header X-Admin-Key', SpectatorKey: 'apiKey header X-Spectator-Key' },
    );
    const security = (method: string, p: string) => doc.paths[p][method].security;
    assert.deepEqual(security('post', '/api/agents'), []);
    assert.deepEqual(security('get', '/api/world'), []);
    assert.deepEqual(security('post', '/api/trade'), [{ AgentKey: [] }]);
    assert.deepEqual(security('get', '/api/agents/me'), [{ AgentKey: [] }]);
    assert.deepEqual(security('get', '/api/market'), [{ AgentKey: [] }, {}], 'the key is optional');
    assert.deepEqual(security('post', '/api/tick'), [{ AdminKey: [] }]);
    assert.deepEqual(security('get', '/api/messages/investigation'), [{ SpectatorKey: [] }]);
    for (const r of routes) {
      const op = doc.paths[r.path][r.method.toLowerCase()];
      assert.equal(!!op.responses['401'], r.auth !== 'none', `${r.method} ${r.path}: 401 exactly when a key is read`);
    }
  });

  it('declares each key header as an optional header parameter of the routes that read it (spec part 5, rule 5)', () => {
    const keyHeaders = (method: string, p: string) => (doc.paths[p][method].parameters ?? [])
      .filter((x: any) => x.in === 'header' && /^X-(Agent|Admin|Spectator)-Key$/.test(x.name))
      .map((x: any) => `${x.name} required=${x.required} ${x.schema.type}`);
    assert.deepEqual(keyHeaders('post', '/api/agents'), []);
    assert.deepEqual(keyHeaders('get', '/api/world'), []);
    assert.deepEqual(keyHeaders('post', '/api/trade'), ['X-Agent-Key required=false string']);
    assert.deepEqual(keyHeaders('get', '/api/agents/me'), ['X-Agent-Key required=false string']);
    assert.deepEqual(keyHeaders('get', '/api/market'), ['X-Agent-Key required=false string']);
    assert.deepEqual(keyHeaders('post', '/api/tick'), ['X-Admin-Key required=false string']);
    assert.deepEqual(keyHeaders('get', '/api/messages/investigation'), ['X-Spectator-Key required=false string']);
    const names = { agent: 'X-Agent-Key', 'agent-read': 'X-Agent-Key', 'agent-optional': 'X-Agent-Key', admin: 'X-Admin-Key', spectator: 'X-Spectator-Key', none: null } as const;
    for (const r of routes) {
      const declared = keyHeaders(r.method.toLowerCase(), r.path);
      assert.deepEqual(declared, names[r.auth] ? [`${names[r.auth]} required=false string`] : [], `${r.method} ${r.path}`);
    }
  });

  it('states the codecs\' bounds, defaults and enum words', () => {
    const schemas = doc.components.schemas;
    assert.deepEqual(doc.paths['/api/agents'].post.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/AgentCreate' });
    const agentCreate = AgentCreate.schema.properties!;
    assert.equal(schemas.AgentCreate.properties.name.minLength, agentCreate.name.min_length);
    assert.equal(schemas.AgentCreate.properties.name.maxLength, agentCreate.name.max_length);
    assert.deepEqual(schemas.AgentCreate.required, ['name', 'model']);
    assert.deepEqual(schemas.OrganizationCreate.properties.location_id, { type: 'string', minLength: 2, maxLength: 40, default: 'emberfall' });
    assert.deepEqual(schemas.OrganizationCreate.required, ['name', 'kind']);
    assert.deepEqual(schemas.TradeCreate.properties.side, { type: 'string', enum: ['buy', 'sell'] });
    assert.deepEqual(schemas.QuestCreate.properties.deadline_days, { type: ['integer', 'null'], minimum: 1, maximum: 365, default: null });
    assert.deepEqual(schemas.WorldEventEffect.properties.price, { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 1_000_000, default: null });
    assert.equal(schemas.AdminLocationCreate.properties.id.pattern, '^[a-z0-9-]+$');
    assert.deepEqual(schemas.WorldEventCreate.properties.effects.items, { $ref: '#/components/schemas/WorldEventEffect' });
    assert.equal(schemas.WorldEventCreate.properties.effects.maxItems, 10);

    const limit = doc.paths['/api/events'].get.parameters.find((p: any) => p.name === 'limit');
    assert.deepEqual(limit, { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: EventsQuery.schema.properties!.limit.default } });
    const id = doc.paths['/api/agents/{agent_id}'].get.parameters.find((p: any) => p.name === 'agent_id');
    assert.deepEqual(id, { name: 'agent_id', in: 'path', required: true, schema: { type: 'integer' } });
    const idempotency = doc.paths['/api/trade'].post.parameters.find((p: any) => p.name === 'Idempotency-Key');
    assert.equal(idempotency.in, 'header');
    assert.equal(idempotency.schema.maxLength, 255);
    // Registration has no agent key to scope it: a random UUID only.
    const registration = doc.paths['/api/agents'].post.parameters.find((p: any) => p.name === 'Idempotency-Key');
    assert.equal(registration.schema.format, 'uuid');
    assert.ok(new RegExp(registration.schema.pattern).test(crypto.randomUUID()));
    assert.equal(new RegExp(registration.schema.pattern).test('agent-registration'), false);
  });

  it('states the error shapes: {"detail": "..."} and the 422 list', () => {
    const { schemas, responses } = doc.components;
    assert.deepEqual(schemas.Error, { type: 'object', properties: { detail: { type: 'string', description: schemas.Error.properties.detail.description } }, required: ['detail'] });
    assert.deepEqual(schemas.ValidationError.properties.detail.items, { $ref: '#/components/schemas/ValidationProblem' });
    assert.deepEqual(schemas.ValidationProblem.required, ['loc', 'msg', 'type']);
    for (const [name, status] of [['Unauthorized', 401], ['Forbidden', 403], ['NotFound', 404], ['Conflict', 409], ['PayloadTooLarge', 413], ['Unavailable', 503]] as const) {
      assert.deepEqual(responses[name].content['application/json'].schema, { $ref: '#/components/schemas/Error' }, `${status}`);
    }
    assert.deepEqual(responses.ValidationFailed.content['application/json'].schema, { $ref: '#/components/schemas/ValidationError' });
    const trade = doc.paths['/api/trade'].post.responses;
    for (const status of ['200', '401', '403', '404', '409', '413', '422', '503']) assert.ok(trade[status], `POST /api/trade states ${status}`);
  });

  it('every answer of a journey through every route and of random actions by four agents fits its route\'s schema for its status', async () => {
    const checker = new AnswerChecker(doc);
    const checked = checker.watch(w);
    await apiJourney(checked);
    const driver = new EconomyDriver(checked, 4);
    await driver.start();
    for (const action of fc.sample(actionArbitrary(4), { seed: 6, numRuns: 150 })) await driver.step(action);

    assert.deepEqual(checker.problems, []);
    const missing = routes.map((r) => `${r.method} ${r.path}`).filter((k) => !checker.succeeded.has(k));
    assert.deepEqual(missing, [], 'every route answered its success at least once');
    const statuses = new Set([...checker.seen.keys()].map((k) => k.split(' ')[2]));
    for (const s of ['401', '403', '404', '409', '422']) assert.ok(statuses.has(s), `some ${s} was checked: ${[...statuses].join(', ')}`);
  });

  it('the check refuses an answer that does not fit (a record without a required field, a status word out of its list)', () => {
    const checker = new AnswerChecker(doc);
    const route = checker.routeOf('GET', '/api/organizations/1')!;
    const validate = checker.validatorFor(route, 200)!;
    const org = {
      id: 1, name: 'N', kind: 'k', location_id: 'emberfall', description: '', goals: '', motto: '', treasury: 1, reputation: 1, status: 'active', agent_id: null,
      travel: null, founded_day: 1, ended_day: null, holdings: {}, workers: 0, employee_count: 0, employees: [], trust: {}, daily_maintenance: 1,
      members: [], projects: [], contracts: [], alliances: [], parties: [], establishments: [],
      member_count: 0, project_count: 0, contract_count: 0, alliance_count: 0, party_count: 0, establishment_count: 0, more: {},
    };
    assert.ok(validate(org), JSON.stringify(validate.errors));
    const { treasury: _t, ...withoutTreasury } = org;
    assert.equal(validate(withoutTreasury), false);
    assert.equal(validate({ ...org, status: 'sleeping' }), false);
    assert.equal(validate({ ...org, holdings: { food: 'lots' } }), false);
    assert.equal(checker.validatorFor(route, 409), undefined, 'a read states no 409');
  });
});

describe('GET /docs: the API reference page', function () {
  let w: TestWorld;
  before(async () => { w = await startTestWorld(); });
  after(async () => { await w?.close(); if (w) fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  const fetchRaw = async (url: string) => {
    const res = await fetch(w.url + url);
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
  };

  it('is an HTML page that loads Swagger UI from this server and points it at /openapi.json', async () => {
    const page = await fetchRaw('/docs');
    assert.equal(page.status, 200);
    assert.match(page.type, /^text\/html/);
    const html = page.body.toString('utf8');
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(sources.sort(), ['/docs/init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']);
    const init = await fetchRaw('/docs/init.js');
    assert.equal(init.status, 200);
    assert.match(init.body.toString('utf8'), /url: '\/openapi\.json'/);
    assert.match(init.body.toString('utf8'), /validatorUrl: null/, 'the document is not sent to an online validator');
    assert.doesNotMatch(html + init.body.toString('utf8'), /https?:\/\//, 'nothing is fetched from elsewhere');
  });

  it('serves the renderer\'s files from the swagger-ui-dist package', async () => {
    const folder = path.dirname(require.resolve('swagger-ui-dist/package.json'));
    for (const [file, type] of [['swagger-ui-bundle.js', /^text\/javascript/], ['swagger-ui.css', /^text\/css/]] as const) {
      const r = await fetchRaw(`/docs/${file}`);
      assert.equal(r.status, 200, file);
      assert.match(r.type, type);
      assert.ok(r.body.equals(fs.readFileSync(path.join(folder, file))), `${file} is the package's file`);
    }
    assert.equal((await fetchRaw('/docs/package.json')).status, 404, 'only the page\'s own files are served');
  });
});

/** A journey through every route of the table, with successes and the usual refusals. */
async function apiJourney(w: TestWorld): Promise<void> {
  const admin = w.keys.admin;
  const ok = async (p: Promise<{ status: number; text: string; body: any }>, status = 200) => {
    const r = await p;
    assert.equal(r.status, status, r.text);
    return r.body;
  };
  const post = (url: string, body: unknown, key?: string, status = 200) => ok(w.call('POST', url, { body, key }), status);

  // Agents and organizations.
  const a = await w.register('Journey Ada');
  const b = await w.register('Journey Bo');
  const c = await w.register('Journey Cy');
  await ok(w.get('/api/agents'));
  await ok(w.get('/api/agents/me', a.key));
  await ok(w.get(`/api/agents/${a.id}`));
  const orgA = await post('/api/organizations', { name: 'Journey House', kind: 'merchant company' }, a.key, 201);
  const orgB = await post('/api/organizations', { name: 'Journey Band', kind: 'adventurers band' }, b.key, 201);
  const orgC = await post('/api/organizations', { name: 'Journey Brief', kind: 'crafters guild' }, c.key, 201);
  await ok(w.call('PATCH', `/api/organizations/${orgA.id}`, { key: a.key, body: { motto: 'Onward', goals: null } }));
  await ok(w.get('/api/organizations'));
  await ok(w.get(`/api/organizations/${orgA.id}`));

  // Places, adventurers, the market.
  const places = await ok(w.get('/api/locations'));
  await ok(w.get('/api/locations/emberfall'));
  await ok(w.get('/api/locations/emberfall/gaps'));
  const adventurers = await ok(w.get('/api/adventurers'));
  await ok(w.get(`/api/adventurers/${adventurers[0].id}`));
  const board = await ok(w.get('/api/market'));
  await ok(w.get('/api/market', a.key));
  await ok(w.get(`/api/market/${board[0].resource}?location_id=emberfall`));
  await ok(w.get(`/api/market/${board[0].resource}/quote?side=buy&quantity=1&location_id=emberfall`));
  await post('/api/trade', { organization_id: orgA.id, resource: 'food', side: 'buy', quantity: 3 }, a.key);
  await post('/api/trade', { organization_id: orgA.id, resource: 'food', side: 'sell', quantity: 1 }, a.key);
  await post('/api/workers/hire', { organization_id: orgA.id, quantity: 2 }, a.key);
  await post('/api/workers/release', { organization_id: orgA.id, quantity: 1 }, a.key);
  const plan = await post('/api/projects', {
    owner_id: orgA.id, title: 'Bakery line', kind: 'production', description: 'Bread for the town square', location_id: 'emberfall',
    budget: 60, duration_days: 5, output_resource: 'food', output_quantity: 2, establishment_kind: null,
  }, a.key, 201);
  const hall = await post('/api/projects', {
    owner_id: orgA.id, title: 'Guild hall', kind: 'construction', description: 'A hall for the guild to meet in', location_id: 'emberfall',
    budget: 100, duration_days: 1, output_resource: null, output_quantity: 0, establishment_kind: 'hall',
  }, a.key, 201);
  await ok(w.get('/api/projects'));
  await ok(w.get('/api/production'));

  // Quests, adventurers for hire, parties.
  const quest = await post('/api/quests', {
    title: 'Clear the cellar', description: 'Rats have taken the cellar under the inn', requester_id: orgA.id, location_id: 'emberfall', reward: 30, deadline_days: 10,
  }, a.key, 201);
  await post(`/api/quests/${quest.id}/sponsors`, { organization_id: orgB.id, amount: 5 }, b.key, 201);
  await post(`/api/quests/${quest.id}/accept`, { organization_id: orgB.id }, b.key);
  const free = (await ok(w.get('/api/adventurers'))).filter((x: any) => x.status === 'available');
  await post('/api/adventurers/hire', { organization_id: orgB.id, adventurer_id: free[0].id }, b.key);
  await post('/api/adventurers/hire', { organization_id: orgB.id, adventurer_id: free[1].id }, b.key);
  await post('/api/adventurers/release', { organization_id: orgB.id, adventurer_id: free[1].id }, b.key);
  const party = await post('/api/parties', { organization_id: orgB.id, name: 'Cellar crew' }, b.key, 201);
  await post(`/api/parties/${party.id}/members`, { adventurer_id: free[0].id }, b.key);
  await ok(w.get(`/api/quests/${quest.id}/odds?party_id=${party.id}`));
  await post(`/api/parties/${party.id}/dispatch`, { quest_id: quest.id }, b.key);
  await ok(w.get('/api/parties'));
  await ok(w.get(`/api/parties/${party.id}`));
  await post(`/api/quests/${quest.id}/complete`, undefined, b.key);
  await ok(w.get(`/api/quests/${quest.id}`));
  const withdrawn = await post('/api/quests', {
    title: 'Fetch the post', description: 'Carry the letters from the gate to the hall', requester_id: orgA.id, location_id: 'emberfall', reward: 5, deadline_days: null,
  }, a.key, 201);
  await post(`/api/quests/${withdrawn.id}/cancel`, undefined, a.key);
  await ok(w.get('/api/quests'));

  // Diplomacy and correspondence.
  const contract = await post('/api/contracts', { proposer_id: orgA.id, counterparty_id: orgB.id, title: 'Escort', terms: 'Guard the caravan to the coast', value: 10, resource: null }, a.key, 201);
  await post(`/api/contracts/${contract.id}/accept`, { organization_id: orgB.id }, b.key);
  await post(`/api/contracts/${contract.id}/fulfill`, { organization_id: orgB.id }, b.key);
  const refused = await post('/api/contracts', { proposer_id: orgA.id, counterparty_id: orgB.id, title: 'Second escort', terms: 'Guard the caravan back again', value: 10, resource: null }, a.key, 201);
  await post(`/api/contracts/${refused.id}/reject`, { organization_id: orgB.id }, b.key);
  const takenBack = await post('/api/contracts', { proposer_id: orgA.id, counterparty_id: orgB.id, title: 'Third escort', terms: 'Guard the caravan once more', value: 10, resource: null }, a.key, 201);
  await post(`/api/contracts/${takenBack.id}/withdraw`, { organization_id: orgA.id }, a.key);
  await ok(w.get('/api/contracts'));
  await ok(w.get(`/api/contracts/${contract.id}`));
  const alliance = await post('/api/alliances', { proposer_id: orgA.id, counterparty_id: orgB.id, terms: 'Mutual aid against the wilds' }, a.key, 201);
  await post(`/api/alliances/${alliance.id}/accept`, { organization_id: orgB.id }, b.key);
  await ok(w.get('/api/alliances'));
  await ok(w.get(`/api/alliances/${alliance.id}`));
  await post(`/api/alliances/${alliance.id}/end`, { organization_id: orgA.id }, a.key);
  await ok(w.get('/api/relationships'));
  await post('/api/messages', { sender_id: orgA.id, recipient_id: null, body: 'Bread for sale at fair prices' }, a.key, 201);
  await post('/api/messages', { sender_id: orgA.id, recipient_id: orgB.id, body: 'Thank you for the escort' }, a.key, 201);
  await post('/api/messages', { sender_id: orgB.id, recipient_id: null, body: 'They say the hills hold gold', kind: 'rumor' }, b.key, 201);
  await ok(w.get('/api/messages'));
  await ok(w.get('/api/messages/inbox?limit=10', b.key));
  await ok(w.call('GET', '/api/messages/investigation', { spectator: w.keys.spectator }));

  // The operator's desk.
  const suggestion = await post('/api/suggestions', { title: 'More roads', body: 'A road to the northern hills would help trade' }, a.key, 201);
  await ok(w.call('GET', '/api/suggestions', { admin }));
  await ok(w.call('PATCH', `/api/suggestions/${suggestion.id}`, { admin, body: { status: 'accepted', admin_note: 'planned' } }));
  await ok(w.call('GET', '/api/agents/me/suggestions', { key: a.key }));
  const event = await ok(w.call('POST', '/api/world-events', {
    admin,
    body: {
      title: 'Harvest fair', description: 'Farmers bring their best to market', duration_days: 3,
      effects: [{ kind: 'market_price_modifier', value: -10, resource: 'food', location_id: 'emberfall', price: null }],
      quest: null, location: null,
    },
  }), 201);
  await ok(w.get('/api/world-events?status=active'));
  await ok(w.call('POST', `/api/world-events/${event.id}/end`, { admin }));
  await ok(w.call('POST', '/api/tick', { admin }));

  // Travel, an ending, a departure.
  const road = places.find((p: any) => p.id === orgC.location_id).routes[0];
  await ok(w.get(`/api/travel/plan?organization_id=${orgC.id}&destination_id=${road.destination_id}`));
  await post('/api/travel', { organization_id: orgC.id, destination_id: road.destination_id }, c.key);
  await post(`/api/organizations/${orgC.id}/dissolve`, undefined, c.key);
  await post(`/api/projects/${plan.id}/cancel`, undefined, a.key);
  await ok(w.get(`/api/establishments?location_id=emberfall&kind=${encodeURIComponent(hall.establishment_kind)}`));
  await post('/api/agents/retire', { reason: 'My story here is finished for now' }, c.key);
  await ok(w.call('GET', '/api/agent-departures', { admin }));

  // The world and its history.
  await ok(w.get('/api/world'));
  await ok(w.get('/api/rules'));
  const events = await ok(w.get('/api/events?limit=5'));
  await ok(w.get(`/api/events/${events[0].id}/investigation?window_days=1`));

  // Refusals of every kind.
  await ok(w.post('/api/agents', { name: 'x' }), 422);
  await ok(w.get('/api/agents/me'), 401);
  await ok(w.get('/api/agents/me', 'wsk_unknown'), 401);
  await ok(w.get('/api/agents/999999'), 404);
  await ok(w.call('POST', '/api/trade', { key: c.key, body: { organization_id: orgA.id, resource: 'food', side: 'buy', quantity: 1 } }), 403);
  await ok(w.call('POST', '/api/trade', { key: a.key, body: { organization_id: orgB.id, resource: 'food', side: 'buy', quantity: 1 } }), 403);
  await ok(w.post('/api/organizations', { name: 'Second House', kind: 'merchant company' }, a.key), 409);
  await ok(w.call('POST', '/api/tick', { admin: 'wrong' }), 401);
  await ok(w.call('POST', '/api/agents', { body: '{"name": ' }), 422);
  await ok(w.get('/api/events?limit=0'), 422);
}
