// The spectator page: reads the public JSON endpoints, then follows the live feed
// (GET /api/events/stream) and reads them again after new history, so it updates
// without a reload. Plain browser JavaScript, no build step, nothing from outside.
'use strict';

(() => {
  const FEED_MAX = 100;
  /** The longest page of history the API gives. */
  const EVENTS_PAGE = 100;
  const CATCH_UP_PAGES = 5;
  const CATCH_UP_NOTABLE = 30;
  const REFRESH_DELAY_MS = 400;
  const MAP = { width: 960, height: 440, margin: 80 };
  const SVG = 'http://www.w3.org/2000/svg';

  const $ = (id) => document.getElementById(id);
  let day = 0;
  let lastId = 0;
  let refreshTimer = null;
  let layoutKey = '';
  /** The laid-out places (before fitting to the screen), and what they were laid out from. */
  let shape = new Map();
  let lastLocations = null;

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
   * Positions of the places: stress majorization on the number of roads between places
   * (places as far apart on the map as on the roads), from a circle in id order, a fixed
   * number of steps: the same places and roads always give the same map.
   */
  function layout(locations) {
    const ids = locations.map((l) => l.id).sort();
    const n = ids.length;
    const index = new Map(ids.map((id, i) => [id, i]));
    const hops = ids.map((_, i) => ids.map((__, j) => (i === j ? 0 : Infinity)));
    for (const l of locations) {
      for (const r of l.routes || []) {
        const a = index.get(l.id); const b = index.get(r.destination_id);
        if (b !== undefined) { hops[a][b] = 1; hops[b][a] = 1; }
      }
    }
    for (let k = 0; k < n; k++) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
      if (hops[i][k] + hops[k][j] < hops[i][j]) hops[i][j] = hops[i][k] + hops[k][j];
    }
    const far = Math.max(1, ...hops.flat().filter(Number.isFinite)) + 1;
    const d = hops.map((row) => row.map((h) => (Number.isFinite(h) ? h : far)));
    let p = ids.map((_, i) => ({ x: Math.cos((2 * Math.PI * i) / n) * far / 2, y: Math.sin((2 * Math.PI * i) / n) * far / 2 }));
    for (let step = 0; step < 300; step++) {
      p = p.map((q, i) => {
        let x = 0; let y = 0; let weights = 0;
        for (let j = 0; j < n; j++) {
          if (i === j) continue;
          const w = 1 / (d[i][j] * d[i][j]);
          const dx = q.x - p[j].x; const dy = q.y - p[j].y;
          const dist = Math.max(Math.hypot(dx, dy), 1e-6);
          x += w * (p[j].x + (d[i][j] * dx) / dist);
          y += w * (p[j].y + (d[i][j] * dy) / dist);
          weights += w;
        }
        return weights ? { x: x / weights, y: y / weights } : q;
      });
    }
    // Turned so that the longest extent runs along the first axis (fit lays that axis along the longer side).
    const cx = p.reduce((a, q) => a + q.x, 0) / p.length;
    const cy = p.reduce((a, q) => a + q.y, 0) / p.length;
    let sxx = 0; let syy = 0; let sxy = 0;
    for (const q of p) { sxx += (q.x - cx) ** 2; syy += (q.y - cy) ** 2; sxy += (q.x - cx) * (q.y - cy); }
    const angle = -0.5 * Math.atan2(2 * sxy, sxx - syy);
    const turned = p.map((q) => ({
      x: (q.x - cx) * Math.cos(angle) - (q.y - cy) * Math.sin(angle),
      y: (q.x - cx) * Math.sin(angle) + (q.y - cy) * Math.cos(angle),
    }));
    return new Map(ids.map((id, i) => [id, turned[i]]));
  }

  /**
   * The map's size in CSS pixels (so its text is as large as the page's): as wide as its
   * panel, landscape on a wide screen and portrait on a phone, where the places' longest
   * extent runs down the screen instead of across.
   */
  function mapBox() {
    const width = Math.max(280, Math.round($('map').getBoundingClientRect().width || MAP.width));
    const portrait = width < 600;
    return { width, height: portrait ? Math.round(width * 1.3) : Math.round(Math.min(MAP.height, width * 0.55)), portrait };
  }

  /** Places the laid-out positions in the box, scaled alike both ways, leaving room for the labels. */
  function fit(shape, box) {
    const points = [...shape].map(([id, q]) => [id, box.portrait ? { x: q.y, y: q.x } : q]);
    const xs = points.map(([, q]) => q.x); const ys = points.map(([, q]) => q.y);
    const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
    const [mx, my] = [Math.min(MAP.margin, box.width / 4), 50];
    const fitX = (box.width - 2 * mx) / Math.max(maxX - minX, 1e-6);
    const fitY = (box.height - 2 * my) / Math.max(maxY - minY, 1e-6);
    // Scaled alike both ways, but for room to spare along the box's length, which the map may
    // take up to half as much again: labels are wider than they are tall.
    const scale = Math.min(fitX, fitY);
    const along = Math.min(box.portrait ? fitY : fitX, scale * 1.5);
    return new Map(points.map(([id, q]) => [id, {
      x: box.width / 2 + (q.x - (minX + maxX) / 2) * (box.portrait ? scale : along),
      y: box.height / 2 + (q.y - (minY + maxY) / 2) * (box.portrait ? along : scale),
    }]));
  }

  const placeRadius = (l) => Math.min(7 + Math.sqrt(l.population) / 8, 26);
  /** The short facts a place shows under its circle on a wide map. */
  const placeFacts = (l) => [`danger ${l.danger}`, [l.population ? `${number(l.population)} people` : '', l.monster_population ? `${number(l.monster_population)} monsters` : ''].filter(Boolean).join(' · ')].filter(Boolean);

  /**
   * Moves places apart until their labels (name above, facts below) no longer overlap, as far
   * as the box allows: the layout knows the roads, not the labels' widths, and a place a world
   * event adds can land among others. Widths are reckoned from the text's length, generously.
   */
  function spread(positions, locations, box) {
    const items = locations.map((l) => {
      const r = placeRadius(l);
      const nameHalf = (l.name.length * 8) / 2 + 3;
      const factsHalf = box.portrait ? 0 : Math.max(0, ...placeFacts(l).map((s) => s.length * 6.4)) / 2 + 3;
      return { id: l.id, p: { ...positions.get(l.id) }, r, nameHalf, factsHalf, half: Math.max(nameHalf, factsHalf, r + 4), up: r + 22, down: box.portrait ? r + 4 : r + 36 };
    });
    const clamp = (it) => {
      it.p.x = Math.min(Math.max(it.p.x, it.half), box.width - it.half);
      it.p.y = Math.min(Math.max(it.p.y, it.up), box.height - it.down);
    };
    for (let round = 0; round < 80; round++) {
      let moved = false;
      for (let i = 0; i < items.length; i++) {
        for (let j = i + 1; j < items.length; j++) {
          const a = items[i]; const b = items[j];
          const ox = a.half + b.half - Math.abs(a.p.x - b.p.x);
          const oy = Math.min(a.p.y + a.down, b.p.y + b.down) - Math.max(a.p.y - a.up, b.p.y - b.up);
          if (ox <= 0 || oy <= 0) continue;
          moved = true;
          if (ox < oy) {
            const s = a.p.x < b.p.x || (a.p.x === b.p.x && i < j) ? -1 : 1;
            a.p.x += (s * (ox + 1)) / 2; b.p.x -= (s * (ox + 1)) / 2;
          } else {
            const s = a.p.y < b.p.y || (a.p.y === b.p.y && i < j) ? -1 : 1;
            a.p.y += (s * (oy + 1)) / 2; b.p.y -= (s * (oy + 1)) / 2;
          }
          clamp(a); clamp(b);
        }
      }
      if (!moved) break;
    }
    // What each place covers, for the roads' labels: its name, its circle and its facts.
    const boxes = items.flatMap(({ p, r, nameHalf, factsHalf, down }) => [
      { x1: p.x - nameHalf, x2: p.x + nameHalf, y1: p.y - r - 22, y2: p.y - r },
      { x1: p.x - r - 2, x2: p.x + r + 2, y1: p.y - r - 2, y2: p.y + r + 2 },
      ...(factsHalf ? [{ x1: p.x - factsHalf, x2: p.x + factsHalf, y1: p.y + r, y2: p.y + down }] : []),
    ]);
    return { positions: new Map(items.map((it) => [it.id, it.p])), boxes };
  }

  const overlaps = (a, b) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2;

  function renderMap(locations) {
    const key = JSON.stringify(locations.map((l) => [l.id, (l.routes || []).map((r) => r.destination_id)]));
    if (key !== layoutKey) { shape = layout(locations); layoutKey = key; }
    lastLocations = locations;
    const box = mapBox();
    const { positions, boxes } = spread(fit(shape, box), locations, box);
    const taken = [...boxes];
    const map = $('map');
    map.setAttribute('viewBox', `0 0 ${box.width} ${box.height}`);
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
        // On a phone the map keeps names only: the table below gives every figure. A road's
        // label goes where along it no place's label or other road's is; a road with no such
        // room keeps its figures in its tooltip.
        const label = `${r.distance_days}d, danger ${r.danger}`;
        const spot = box.portrait ? null : [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8].flatMap((t) => [-4, 13].map((dy) => {
          const x = a.x + (b.x - a.x) * t; const y = a.y + (b.y - a.y) * t + dy;
          return { x, y, area: { x1: x - label.length * 3, x2: x + label.length * 3, y1: y - 10, y2: y + 3 } };
        })).find((s) => !taken.some((o) => overlaps(s.area, o)));
        if (spot) {
          taken.push(spot.area);
          road.append(svg('text', { x: spot.x, y: spot.y, 'text-anchor': 'middle' }, label));
        }
        road.append(svg('title', {}, `${l.name} to ${r.destination_id}: ${r.distance_days} days, danger ${r.danger}`));
        map.append(road);
      }
    }
    for (const l of locations) {
      const at = positions.get(l.id);
      const place = svg('g', { class: 'place', 'data-id': l.id });
      const radius = placeRadius(l);
      place.append(svg('circle', { cx: at.x, cy: at.y, r: radius, fill: dangerColour(l.danger) }));
      place.append(svg('text', { x: at.x, y: at.y - radius - 6, 'text-anchor': 'middle', class: 'name' }, l.name));
      // Short on the map (the table below has every figure): the danger, then the people and monsters there are.
      const facts = svg('text', { y: at.y + radius + 14, 'text-anchor': 'middle', class: 'facts' });
      placeFacts(l).forEach((line, i) => facts.append(svg('tspan', { x: at.x, dy: i ? 13 : 0 }, line)));
      if (!box.portrait) place.append(facts);
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
      el('span', { class: 'meta' }, `${q.status} · at ${names.get(q.location_id) || q.location_id} · ${q.deadline_day === null ? 'no deadline' : `due day ${q.deadline_day}`}`))) : [el('li', { class: 'empty' }, 'No open quests.')]));
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

  /**
   * What every day brings whatever anyone does: each organization's upkeep, each market's
   * prices, the monsters of each wild place breeding. In a lone world that is most of the
   * history, so the feed hides it unless asked (upkeep an organization could not pay in
   * full, monsters slain on a quest, new goods at a market and the day's beginning are not
   * routine).
   */
  const isRoutine = (e) => (e.category === 'maintenance' && !(e.data != null && e.data.unpaid > 0))
    || (e.category === 'market' && e.data != null && e.data.prices != null)
    || (e.category === 'monsters' && e.data != null && e.data.change == null && e.data.quest_id == null);

  function feedItem(e) {
    return el('li', { 'data-id': e.id, class: `event ${e.category}${isRoutine(e) ? ' routine' : ''}` },
      el('span', { class: 'when' }, `day ${e.day}`),
      el('span', { class: 'category' }, e.category),
      el('span', { class: 'summary' }, e.summary));
  }

  function addEvent(e) {
    if (e.id <= lastId) return;
    lastId = e.id;
    setDay(e.day);
    const feed = $('feed');
    const item = feedItem(e);
    feed.prepend(item);
    // The newest FEED_MAX of the routine and of the rest each, so a busy day's upkeep never pushes the rest out.
    const kept = feed.querySelectorAll(item.classList.contains('routine') ? 'li.routine' : 'li:not(.routine)');
    for (let i = FEED_MAX; i < kept.length; i++) kept[i].remove();
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

  /**
   * The recent history: pages of EVENTS_PAGE back from the newest (at most CATCH_UP_PAGES, none older
   * than what the feed holds) until CATCH_UP_NOTABLE events that are not routine were read,
   * so a day of upkeep does not leave the feed nearly empty. Added oldest first.
   */
  async function catchUp() {
    const events = [];
    let notable = 0;
    let before = '';
    for (let page = 0; page < CATCH_UP_PAGES && notable < CATCH_UP_NOTABLE; page++) {
      const got = await getJson(`/api/events?limit=${EVENTS_PAGE}${before}`);
      events.push(...got);
      notable += got.filter((e) => !isRoutine(e)).length;
      if (got.length < EVENTS_PAGE || got[got.length - 1].id <= lastId) break;
      before = `&before_id=${got[got.length - 1].id}`;
    }
    for (const e of events.reverse()) addEvent(e);
  }

  async function start() {
    // A browser may restore the box as it was left; the feed follows the box.
    const showRoutine = () => $('feed').classList.toggle('hide-routine', !$('show-routine').checked);
    $('show-routine').addEventListener('change', showRoutine);
    showRoutine();
    try {
      await Promise.all([refresh(), catchUp()]);
    } catch (error) {
      showTrouble(error);
    }
    follow();
  }

  // A new width (a phone turned, a window resized) fits the map again.
  let resizeTimer = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (lastLocations) renderMap(lastLocations); }, 150);
  });

  start();
})();
