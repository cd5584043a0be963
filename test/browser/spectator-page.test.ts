// The spectator page (GET /) in a real headless Chromium against a real world: it loads
// without console errors, shows the current day, the places with their roads, the
// markets, the quest board and the organizations ranked, and shows a new day and a new
// event after POST /api/tick without a reload. Readable on a phone: nothing wider than
// its screen. Served by the service itself: nothing is fetched from elsewhere.
import assert from 'assert/strict';
import fs from 'fs';
import type { Browser, Page } from 'playwright-core';
import { foundOrg } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';
import { launchChromium } from './chromium';

interface Watched {
  page: Page;
  /** Console errors, uncaught exceptions, failed requests and error answers the page met. */
  problems: string[];
  /** Every URL the page asked for. */
  requests: string[];
}

async function openPage(browser: Browser, url: string, viewport = { width: 1280, height: 900 }): Promise<Watched> {
  const page = await browser.newPage({ viewport });
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('request', (r) => requests.push(r.url()));
  page.on('requestfailed', (r) => { if (!/ERR_ABORTED/.test(r.failure()?.errorText ?? '')) problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`); });
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()} from ${r.url()}`); });
  await page.goto(url);
  return { page, problems, requests };
}

describe('the spectator page in Chromium', function () {
  this.timeout(120_000);
  let w: TestWorld;
  let browser: Browser;
  let richest: { id: number; name: string };

  before(async () => {
    w = await startTestWorld();
    browser = await launchChromium();
    // A world with an agent's organization and a quest on the board.
    const founded = await foundOrg(w, 'Lantern Watchers', 'merchant company');
    const quest = await w.post('/api/quests', { requester_id: founded.org.id, title: 'Light the northern beacons', description: 'Carry oil to the beacons on the Ironcrag road.', location_id: 'ironcrag', reward: 120, deadline_days: 10 }, founded.key);
    assert.equal(quest.status, 201, quest.text);
    const open = await w.post('/api/quests', { requester_id: founded.org.id, title: 'Keep the lighthouse lit', description: 'Oil for the lighthouse, whenever it runs low.', location_id: 'emberfall', reward: 110, deadline_days: null }, founded.key);
    assert.equal(open.status, 201, open.text);
    await w.tick();
    const organizations = (await w.get('/api/organizations')).body as Array<{ id: number; name: string; treasury: number }>;
    richest = [...organizations].sort((a, b) => b.treasury - a.treasury || a.id - b.id)[0];
  });
  after(async () => {
    await browser?.close();
    await w?.close();
    if (w) fs.rmSync(w.dataDir, { recursive: true, force: true });
  });

  it('is served by the service: HTML at /, its script and style under /page/, a policy that allows nothing from elsewhere', async () => {
    const res = await fetch(`${w.url}/`);
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get('content-type')), /^text\/html/);
    assert.match(String(res.headers.get('content-security-policy')), /default-src 'self'/);
    const html = await res.text();
    assert.ok(!/https?:\/\//.test(html.replace(/http:\/\/www\.w3\.org[^"]*/g, '')), 'no address outside the service');
    for (const [file, type] of [['app.js', /javascript/], ['style.css', /css/]] as const) {
      const r = await fetch(`${w.url}/page/${file}`);
      assert.equal(r.status, 200, file);
      assert.match(String(r.headers.get('content-type')), type);
    }
    const missing = await fetch(`${w.url}/page/secrets.txt`);
    assert.equal(missing.status, 404);
    assert.equal(typeof ((await missing.json()) as { detail: string }).detail, 'string');
  });

  it('loads without console errors and shows the day, the map, the markets, the quest board and the organizations ranked', async () => {
    const { page, problems, requests } = await openPage(browser, `${w.url}/`);
    const day = (await w.get('/api/world')).body.day as number;
    await page.waitForFunction((d) => document.getElementById('day')?.textContent === String(d), day);
    await page.waitForSelector('#live[data-state="live"]');
    const locations = (await w.get('/api/locations')).body as Array<{ id: string; routes: unknown[] }>;
    assert.equal(await page.locator('#map .place').count(), locations.length, 'every place on the map');
    const roads = new Set(locations.flatMap((l) => (l.routes as Array<{ destination_id: string }>).map((r) => [l.id, r.destination_id].sort().join('|')))).size;
    assert.equal(await page.locator('#map .road').count(), roads, 'every road once');
    assert.match(await page.locator('#places').innerText(), /Frostmaw Deep[\s\S]*dungeon/);
    const markets = await page.locator('#markets').innerText();
    assert.match(markets, /Emberfall/);
    assert.match(markets, /food/);
    const board = await page.locator('#quests').innerText();
    assert.match(board, /Light the northern beacons[\s\S]*120 gold[\s\S]*due day \d+/);
    assert.match(board, /Keep the lighthouse lit[\s\S]*110 gold[\s\S]*no deadline/, 'a quest without a deadline says so');
    assert.doesNotMatch(board, /null/);
    assert.equal((await page.locator('#by-treasury li').first().innerText()).split('\n')[0].trim(), richest.name);
    assert.ok(await page.locator('#by-reputation li').count() > 0);
    assert.ok(await page.locator('#feed li').count() > 0, 'the recent history in the feed');
    assert.deepEqual(problems, []);
    const origin = new URL(w.url).origin;
    assert.deepEqual(requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:')), [], 'nothing from elsewhere');
    await page.close();
  });

  it('shows a new day and a new event after POST /api/tick, without a reload', async () => {
    const { page, problems } = await openPage(browser, `${w.url}/`);
    const before = (await w.get('/api/world')).body.day as number;
    await page.waitForFunction((d) => document.getElementById('day')?.textContent === String(d), before);
    await page.waitForSelector('#live[data-state="live"]');
    const newestShown = Number(await page.locator('#feed li').first().getAttribute('data-id'));
    // A mark on this document: a reload would lose it.
    await page.evaluate(() => { (window as unknown as { stillHere: boolean }).stillHere = true; });
    const next = await w.tick();
    assert.equal(next, before + 1);
    await page.waitForFunction((d) => document.getElementById('day')?.textContent === String(d), next, { timeout: 10_000 });
    await page.waitForFunction((n) => Number(document.querySelector('#feed li')?.getAttribute('data-id')) > n, newestShown, { timeout: 10_000 });
    assert.match(await page.locator('#feed').innerText(), new RegExp(`Day ${next} began`));
    assert.equal(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere), true, 'the same document: no reload');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('hides the daily routine (upkeep, each day\'s prices, monsters breeding) unless asked, and keeps the rest', async () => {
    await w.tick();
    const recent = (await w.get('/api/events?limit=100')).body as Array<{ id: number; category: string; summary: string }>;
    const upkeep = recent.find((e) => e.category === 'maintenance');
    const prices = recent.find((e) => e.category === 'market' && /; population \d+/.test(e.summary));
    const dayBegan = recent.find((e) => e.category === 'world' && /^Day \d+ began$/.test(e.summary));
    assert.ok(upkeep && prices && dayBegan, 'the world\'s day wrote upkeep, prices and its beginning');
    const { page, problems } = await openPage(browser, `${w.url}/`);
    await page.waitForSelector('#live[data-state="live"]');
    const item = (id: number) => page.locator(`#feed li[data-id="${id}"]`);
    await item(dayBegan.id).waitFor();
    assert.equal(await item(upkeep.id).count(), 1, 'the routine is in the feed');
    assert.equal(await item(upkeep.id).isVisible(), false, 'upkeep hidden');
    assert.equal(await item(prices.id).isVisible(), false, 'the day\'s prices hidden');
    assert.equal(await item(dayBegan.id).isVisible(), true, 'the day\'s beginning shown');
    await page.locator('#show-routine').check();
    assert.equal(await item(upkeep.id).isVisible(), true, 'upkeep shown when asked');
    assert.equal(await item(prices.id).isVisible(), true);
    await page.locator('#show-routine').uncheck();
    assert.equal(await item(upkeep.id).isVisible(), false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('shows an upkeep an organization could not pay in full, and reads back past a day of routine to find what is not', async () => {
    // One organization puts nearly all its gold into a reward: its next upkeep is paid only in part.
    const short = await foundOrg(w, 'Thin Purse Traders', 'merchant company');
    const reward = short.org.treasury - 1;
    const posted = await w.post('/api/quests', { requester_id: short.org.id, title: 'Everything on one quest', description: 'All we have for whoever does it.', location_id: 'emberfall', reward, deadline_days: 30 }, short.key);
    assert.equal(posted.status, 201, posted.text);
    // A hundred more organizations: their upkeep pushes the day's beginning out of the newest hundred events.
    for (let i = 0; i < 100; i++) await foundOrg(w, `Crowd Company ${i}`, 'merchant company');
    const day = await w.tick();
    const newest = (await w.get('/api/events?limit=100')).body as Array<{ id: number; category: string; summary: string }>;
    const began = (await w.get(`/api/events?category=world&limit=5`)).body as Array<{ id: number; summary: string }>;
    const dayBegan = began.find((e) => e.summary === `Day ${day} began`)!;
    assert.ok(dayBegan && !newest.some((e) => e.id === dayBegan.id), 'the day\'s beginning is older than the newest hundred');
    assert.ok(newest.filter((e) => e.category === 'maintenance').length >= 80, 'most of the newest hundred are upkeep');
    const unpaid = ((await w.get(`/api/events?organization_id=${short.org.id}&category=maintenance&limit=5`)).body as Array<{ id: number; summary: string }>)
      .find((e) => /could pay only/.test(e.summary));
    assert.ok(unpaid, 'the upkeep was paid in part');
    const { page, problems } = await openPage(browser, `${w.url}/`);
    await page.waitForSelector('#live[data-state="live"]');
    const item = (id: number) => page.locator(`#feed li[data-id="${id}"]`);
    await item(dayBegan.id).waitFor({ timeout: 10_000 });
    assert.equal(await item(dayBegan.id).isVisible(), true, 'the day\'s beginning, read from an older page, is shown');
    assert.equal(await item(unpaid.id).isVisible(), true, 'the upkeep paid in part is shown, the box unticked');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('is readable on a phone: nothing wider than the screen', async () => {
    const { page, problems } = await openPage(browser, `${w.url}/`, { width: 390, height: 844 });
    await page.waitForSelector('#markets tbody tr');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
    const mapWidth = await page.locator('#map').evaluate((e) => e.getBoundingClientRect().width);
    assert.ok(mapWidth > 300 && mapWidth <= 390, `the map fits the screen: ${mapWidth}`);
    // The map is drawn at the screen's size, so its names are as large as the page's text.
    const nameHeights = await page.locator('#map .place .name').evaluateAll((names) => names.map((e) => e.getBoundingClientRect().height));
    assert.ok(nameHeights.length > 0 && nameHeights.every((h) => h >= 12), `the places' names are readable: ${nameHeights.join(', ')} px high`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('keeps the map readable when world events crowd new settlements in: no two of its labels overlap', async () => {
    const settle = async (id: string, name: string, routes: Array<{ destination_id: string; distance_days: number; danger: number }>) => {
      const r = await w.call('POST', '/api/world-events', {
        admin: 'test-admin-key',
        body: {
          title: `The founding of ${name}`, description: `Settlers raise ${name} by the road.`, duration_days: 1, quest: null,
          effects: [{ kind: 'population_growth_modifier', value: 1, resource: null, location_id: null, price: null }],
          location: { id, name, kind: 'village', description: `${name}, a new settlement.`, danger: 3, population: 400, monster_population: 0, routes },
        },
      });
      assert.equal(r.status, 201, r.text);
    };
    await settle('riverbend', 'Riverbend', [{ destination_id: 'emberfall', distance_days: 1, danger: 2 }]);
    await settle('new-place', 'New Place', [{ destination_id: 'emberfall', distance_days: 1, danger: 2 }, { destination_id: 'riverbend', distance_days: 1, danger: 2 }]);
    const { page, problems } = await openPage(browser, `${w.url}/`, { width: 1280, height: 900 });
    await page.waitForSelector('#map .place[data-id="new-place"]');
    const labels = await page.locator('#map text').evaluateAll((texts) => texts.map((t) => {
      const r = t.getBoundingClientRect();
      return { text: t.textContent ?? '', x1: r.left, x2: r.right, y1: r.top, y2: r.bottom };
    }));
    assert.ok(labels.some((l) => l.text === 'New Place') && labels.some((l) => /danger \d+$/.test(l.text) && /d, /.test(l.text)), 'places and roads are labelled');
    const clashes: string[] = [];
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i]; const b = labels[j];
        if (a.x1 + 1 < b.x2 && b.x1 + 1 < a.x2 && a.y1 + 1 < b.y2 && b.y1 + 1 < a.y2) clashes.push(`"${a.text}" and "${b.text}"`);
      }
    }
    assert.deepEqual(clashes, [], 'labels drawn over each other');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
