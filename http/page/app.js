// The spectator page: reads the public JSON endpoints, then follows the live feed
// (GET /api/events/stream) and reads them again after new history, so it updates
// without a reload. Plain browser JavaScript, no build step, nothing from outside.
'use strict';

(() => {
  const FEED_MAX = 100;
  const REFRESH_DELAY_MS = 400;
  const MAP = { width: 640, height: 420, margin: 60 };
  const SVG = 'http://www.w3.org/2000/svg';

  const $ = (id) => document.getElementById(id);
  let day = 0;
  let lastId = 0;
  let refreshTimer = null;
  let layoutKey = '';
  let positions = new Map();

  async function getJson(path) {
    const res = await fetch(path, { headers: { Accept: 'application/json' } });
    if (!res.ok) throw new Error(`${path} answered ${res.status}`);
    return res.json();
  }

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  }

  function svg(tag, attrs = {}, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const number = (n) => Number(n).toLocaleString('en', { maximumFractionDigits: 2 });
  /** Green at danger 0, through yellow, to red at 100. */
  const dangerColour = (danger) => `hsl(${Math.round(120 - Math.min(100, Math.max(0, danger)) * 1.2)}, 70%, 45%)`;

  function setDay(d) {
    if (!(d > day)) return;
    day = d;
    $('day').textContent = String(d);
    $('day').dataset.day = String(d);
  }

  /**
   * Positions of the places: a force layout (roads pull, places push apart) from a circle
   * in id order, run a fixed number of steps: the same places and roads always give the
   * same map.
   */
  function layout(locations) {
    const ids = locations.map((l) => l.id).sort();
    const index = new Map(ids.map((id, i) => [id, i]));
    const p = ids.map((_, i) => ({ x: Math.cos((2 * Math.PI * i) / ids.length), y: Math.sin((2 * Math.PI * i) / ids.length) }));
    const roads = [];
    for (const l of locations) {
      for (const r of l.routes || []) {
        if (index.has(r.destination_id) && l.id < r.destination_id) roads.push([index.get(l.id), index.get(r.destination_id), r.distance_days]);
      }
    }
    for (let step = 0; step < 400; step++) {
      const force = p.map(() => ({ x: 0, y: 0 }));
      for (let i = 0; i < p.length; i++) {
        for (let j = i + 1; j < p.length; j++) {
          const dx = p[i].x - p[j].x; const dy = p[i].y - p[j].y;
          const d2 = Math.max(dx * dx + dy * dy, 0.01);
          const f = 0.05 / d2;
          force[i].x += dx * f; force[i].y += dy * f; force[j].x -= dx * f; force[j].y -= dy * f;
        }
      }
      for (const [a, b, days] of roads) {
        const dx = p[b].x - p[a].x; const dy = p[b].y - p[a].y;
        const d = Math.max(Math.hypot(dx, dy), 0.01);
        const f = 0.1 * (d - 0.3 * Math.sqrt(days));
        force[a].x += (dx / d) * f; force[a].y += (dy / d) * f; force[b].x -= (dx / d) * f; force[b].y -= (dy / d) * f;
      }
      for (let i = 0; i < p.length; i++) { p[i].x += force[i].x; p[i].y += force[i].y; }
    }
    const xs = p.map((q) => q.x); const ys = p.map((q) => q.y);
    const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const scale = (v, min, max, size) => MAP.margin + (max - min < 1e-6 ? 0.5 : (v - min) / (max - min)) * (size - 2 * MAP.margin);
    return new Map(ids.map((id, i) => [id, { x: scale(p[i].x, minX, maxX, MAP.width), y: scale(p[i].y, minY, maxY, MAP.height) }]));
  }

  function renderMap(locations) {
    const key = JSON.stringify(locations.map((l) => [l.id, (l.routes || []).map((r) => r.destination_id)]));
    if (key !== layoutKey) { positions = layout(locations); layoutKey = key; }
    const map = $('map');
    map.replaceChildren();
    const drawn = new Set();
    for (const l of locations) {
      for (const r of l.routes || []) {
        const pair = [l.id, r.destination_id].sort().join('|');
        const a = positions.get(l.id); const b = positions.get(r.destination_id);
        if (!a || !b || drawn.has(pair)) continue;
        drawn.add(pair);
        const road = svg('g', { class: 'road' });
        road.append(svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: dangerColour(r.danger) }));
        road.append(svg('text', { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 4, 'text-anchor': 'middle' }, `${r.distance_days}d, danger ${r.danger}`));
        road.append(svg('title', {}, `${l.name} to ${r.destination_id}: ${r.distance_days} days, danger ${r.danger}`));
        map.append(road);
      }
    }
    for (const l of locations) {
      const at = positions.get(l.id);
      const place = svg('g', { class: 'place', 'data-id': l.id });
      const radius = 7 + Math.sqrt(l.population) / 8;
      place.append(svg('circle', { cx: at.x, cy: at.y, r: Math.min(radius, 26), fill: dangerColour(l.danger) }));
      place.append(svg('text', { x: at.x, y: at.y - Math.min(radius, 26) - 6, 'text-anchor': 'middle', class: 'name' }, l.name));
      place.append(svg('text', { x: at.x, y: at.y + Math.min(radius, 26) + 14, 'text-anchor': 'middle', class: 'facts' },
        `danger ${l.danger} · pop ${number(l.population)} · monsters ${number(l.monster_population)}`));
      place.append(svg('title', {}, `${l.name} (${l.kind}): danger ${l.danger}, population ${l.population}, monsters ${l.monster_population}`));
      map.append(place);
    }
    $('places').tBodies[0].replaceChildren(...locations.map((l) => el('tr', { 'data-id': l.id },
      el('td', {}, l.name), el('td', {}, l.kind), el('td', { class: 'num' }, l.danger), el('td', { class: 'num' }, number(l.population)), el('td', { class: 'num' }, number(l.monster_population)))));
  }

  function renderMarkets(boards) {
    const resources = [...new Set(boards.flatMap((b) => b.entries.map((e) => e.resource)))].sort();
    const table = $('markets');
    table.tHead.replaceChildren(el('tr', {}, el('th', {}, 'Resource'), ...boards.map((b) => el('th', { class: 'num' }, b.location.name))));
    table.tBodies[0].replaceChildren(...resources.map((resource) => el('tr', {}, el('th', {}, resource), ...boards.map((b) => {
      const e = b.entries.find((x) => x.resource === resource);
      return e ? el('td', { class: 'num', title: `supply ${e.supply}` }, number(e.price)) : el('td', { class: 'num none' }, '–');
    }))));
  }

  function renderQuests(quests, names) {
    const board = quests.filter((q) => q.status === 'open' || q.status === 'accepted').sort((a, b) => b.reward - a.reward || a.id - b.id);
    $('quests').replaceChildren(...(board.length ? board.map((q) => el('li', { class: `quest ${q.status}` },
      el('strong', {}, q.title),
      el('span', { class: 'reward' }, `${number(q.reward)} gold`),
      el('span', { class: 'meta' }, `${q.status} · at ${names.get(q.location_id) || q.location_id} · due day ${q.deadline_day}`))) : [el('li', { class: 'empty' }, 'No open quests.')]));
  }

  function renderOrganizations(organizations) {
    const ranking = (id, field, unit) => {
      const top = [...organizations].sort((a, b) => b[field] - a[field] || a.id - b.id).slice(0, 10);
      $(id).replaceChildren(...top.map((o) => el('li', {}, el('span', {}, o.name), el('span', { class: 'num' }, `${number(o[field])}${unit}`))));
    };
    ranking('by-treasury', 'treasury', ' gold');
    ranking('by-reputation', 'reputation', '');
  }

  async function refresh() {
    const [world, locations, quests, organizations] = await Promise.all([
      getJson('/api/world'), getJson('/api/locations'), getJson('/api/quests'), getJson('/api/organizations'),
    ]);
    setDay(world.day);
    const names = new Map(locations.map((l) => [l.id, l.name]));
    renderMap(locations);
    const markets = locations.filter((l) => l.has_market);
    const boards = await Promise.all(markets.map(async (l) => ({ location: l, entries: await getJson(`/api/market?location_id=${encodeURIComponent(l.id)}`) })));
    renderMarkets(boards);
    renderQuests(quests, names);
    renderOrganizations(organizations);
  }

  function scheduleRefresh() {
    if (refreshTimer) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      refresh().catch(showTrouble);
    }, REFRESH_DELAY_MS);
  }

  function feedItem(e) {
    return el('li', { 'data-id': e.id, class: `event ${e.category}` },
      el('span', { class: 'when' }, `day ${e.day}`),
      el('span', { class: 'category' }, e.category),
      el('span', { class: 'summary' }, e.summary));
  }

  function addEvent(e) {
    if (e.id <= lastId) return;
    lastId = e.id;
    setDay(e.day);
    const feed = $('feed');
    feed.prepend(feedItem(e));
    while (feed.children.length > FEED_MAX) feed.lastElementChild.remove();
  }

  function setLive(state, text) {
    $('live').dataset.state = state;
    $('live').textContent = text;
  }

  function showTrouble(error) {
    setLive('trouble', `cannot read the world right now (${error.message}); trying again`);
    scheduleRefresh();
  }

  function follow() {
    // The stream begins after the newest event already shown; a reconnection resumes by Last-Event-ID.
    const source = new EventSource(`/api/events/stream${lastId ? `?after_id=${lastId}` : ''}`);
    source.onopen = () => setLive('live', 'live');
    source.onmessage = (message) => {
      addEvent(JSON.parse(message.data));
      scheduleRefresh();
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        // Refused (the node's streams are full, or it is starting): catch up and open a new one shortly.
        setLive('trouble', 'the live feed is unavailable; trying again');
        setTimeout(() => { catchUp().then(follow, () => setTimeout(follow, 10_000)); }, 10_000);
      } else {
        setLive('connecting', 'reconnecting…');
      }
    };
  }

  async function catchUp() {
    const events = await getJson(`/api/events?limit=30`);
    for (const e of events.reverse()) addEvent(e);
  }

  async function start() {
    try {
      await Promise.all([refresh(), catchUp()]);
    } catch (error) {
      showTrouble(error);
    }
    follow();
  }

  start();
})();
