// The mixed agent workload: what one agent does in a session, as autocannon's request
// sequence (every connection plays it over and over, a new agent each time).
export const MIX_DESCRIPTION = [
  'each connection plays one agent session after another, 22 requests, 10 of them writes:',
  'register (1), found an organization at a market, the markets in turn (1), read the world (2), the regional market board (1),',
  'one resource\'s price (1), buy a unit of food (1), read its organization (2), sell the unit back (1), hire an available',
  'adventurer (1) and release them later (1), read the quest board (1), post a quest (1), read another organization\'s quest (1),',
  'accept it (1), post a public message (1), read history (1), read the inbox (1), read itself (1), read its location (1), travel',
  'to the next market (1).',
].join(' ');

export interface MixWorld { markets: string[]; openQuests: number[]; adventurers: number[] }

type Ctx = Record<string, any>;
const json = (req: any, path: string, body: unknown, ctx: Ctx) => ({ ...req, path, headers: { 'content-type': 'application/json', ...(ctx.key ? { 'x-agent-key': ctx.key } : {}) }, body: JSON.stringify(body) });
const get = (req: any, path: string, ctx: Ctx) => ({ ...req, method: 'GET', path, headers: ctx.key ? { 'x-agent-key': ctx.key } : {}, body: undefined });
const parse = (body: string) => { try { return JSON.parse(body); } catch { return {}; } };

/**
 * The session as autocannon requests over shared pools of open quests and available
 * adventurers, so agents meet each other's quests. The pools are the world's own arrays,
 * carried from one run of the mix to the next: a run that began again from the seeded
 * pools would hire adventurers the last run left hired, and accept quests it accepted.
 */
export function mixRequests(w: MixWorld): object[] {
  let sessions = 0;
  const quests = w.openQuests;
  const adventurers = w.adventurers;
  return [
    { method: 'POST', setupRequest: (r: any, c: Ctx) => { c.n = sessions++; c.market = w.markets[c.n % w.markets.length]; return json(r, '/api/agents', { name: `Mixed agent ${c.n}`, model: 'bench' }, {}); },
      onResponse: (_s: number, b: string, c: Ctx) => { c.key = parse(b).api_key; } },
    { method: 'POST', setupRequest: (r: any, c: Ctx) => json(r, '/api/organizations', { name: `Mixed Co ${c.n}`, kind: 'merchant company', location_id: c.market }, c),
      onResponse: (_s: number, b: string, c: Ctx) => { c.org = parse(b).id; } },
    { setupRequest: (r: any, c: Ctx) => get(r, '/api/world', c) },
    { setupRequest: (r: any, c: Ctx) => get(r, `/api/market?location_id=${c.market}`, c) },
    { setupRequest: (r: any, c: Ctx) => get(r, `/api/market/food?location_id=${c.market}`, c) },
    { method: 'POST', setupRequest: (r: any, c: Ctx) => json(r, '/api/trade', { organization_id: c.org, resource: 'food', side: 'buy', quantity: 1 }, c) },
    { setupRequest: (r: any, c: Ctx) => get(r, `/api/organizations/${c.org}`, c) },
    { method: 'POST', setupRequest: (r: any, c: Ctx) => json(r, '/api/trade', { organization_id: c.org, resource: 'food', side: 'sell', quantity: 1 }, c) },
    { method: 'POST', setupRequest: (r: any, c: Ctx) => { c.adventurer = adventurers.shift(); return json(r, '/api/adventurers/hire', { organization_id: c.org, adventurer_id: c.adventurer ?? 1 }, c); } },
    { setupRequest: (r: any, c: Ctx) => get(r, '/api/quests', c) },
    { method: 'POST', setupRequest: (r: any, c: Ctx) => json(r, '/api/quests', { title: 'Escort the wagons', description: 'Wagons need an escort.', requester_id: c.org, location_id: c.market, reward: 5, deadline_days: 30 }, c),
      onResponse: (s: number, b: string, c: Ctx) => { c.posted = s < 300 ? parse(b).id : undefined; } },
    { setupRequest: (r: any, c: Ctx) => { c.quest = quests.shift(); return get(r, `/api/quests/${c.quest ?? 1}`, c); } },
    { method: 'POST', setupRequest: (r: any, c: Ctx) => { if (c.posted) quests.push(c.posted); return json(r, `/api/quests/${c.quest ?? 1}/accept`, { organization_id: c.org }, c); } },
    { method: 'POST', setupRequest: (r: any, c: Ctx) => json(r, '/api/messages', { sender_id: c.org, recipient_id: null, body: 'Grain and timber for sale.' }, c) },
    { setupRequest: (r: any, c: Ctx) => get(r, '/api/events?limit=30', c) },
    { setupRequest: (r: any, c: Ctx) => get(r, '/api/messages/inbox', c) },
    { method: 'POST', setupRequest: (r: any, c: Ctx) => json(r, '/api/adventurers/release', { organization_id: c.org, adventurer_id: c.adventurer ?? 1 }, c),
      onResponse: (_s: number, _b: string, c: Ctx) => { if (c.adventurer) adventurers.push(c.adventurer); } },
    { setupRequest: (r: any, c: Ctx) => get(r, '/api/agents/me', c) },
    { setupRequest: (r: any, c: Ctx) => get(r, `/api/locations/${c.market}`, c) },
    { setupRequest: (r: any, c: Ctx) => get(r, `/api/organizations/${c.org}`, c) },
    { setupRequest: (r: any, c: Ctx) => get(r, '/api/world', c) },
    { method: 'POST', setupRequest: (r: any, c: Ctx) => json(r, '/api/travel', { organization_id: c.org, destination_id: w.markets[(c.n + 1) % w.markets.length] }, c) },
  ];
}
