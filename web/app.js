// SPDX-License-Identifier: MIT
// The demo page (web/index.html, docs/web.md "The page"): the built-in scenes of orca.mjs on a
// canvas, their parameters in the URL, a panel with the state hash and a mark when it equals
// the native golden hash (test/golden/determinism.txt) at the golden step; navigation (any
// scene, and the rooms scene of scenes.mjs: a selected agent's path, click to move its group's
// exit, walls drawn with the mouse re-route the agents at the next step).
//
// Drawing: every agent is coloured by the direction from its start to its goal (one of HUES
// buckets round the colour wheel; the rooms scene: by group), its goal is a faint dot of that
// colour and its last TRAIL steps a fading trail. Agents, goals and trails are rasterised into
// one ImageData by the page (discs with anti-aliased edges from a precomputed stamp) and put on
// the canvas with one putImageData per frame, whatever the agent count; walls, paths and marks
// are drawn on top as vector paths. The page draws only when something changed: while
// playing, one requestAnimationFrame per frame; while paused, none (an edit, a resize or a
// button asks for one frame).
import { loadOrca, simdSupported } from './orca.mjs';
import { roomsScene, roomsGroup, moveRoomsExit, ROOMS_GOALS } from './scenes.mjs';

const GROUP_COLOURS = ['#3f6fc4', '#c4473f'];
const HUES = 12;
const NO_GOAL = '#6b7280'; // agents without a point goal
const ADDED = '#e07a1f'; // agents added by clicks
const BACKGROUND = '#fbfbfc';
const TAU = 2 * Math.PI;
const TRAIL = 48; // steps a trail lasts
const FADES = 4; // and the shades it fades through (each TRAIL / FADES steps)
const GOALS_MAX = 5000; // goal dots are drawn up to this many agents
const STATS_MS = 250; // the panel (and its hash) refreshes at most this often while playing
const PIXELS_MAX = 1920 * 1200; // the canvas's backing store: at most this many pixels

// Colours as [r, g, b] (0..255).
function hexRgb(hex) { return [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16)); }
function hueRgb(h) { // HSL with saturation 0.68, lightness 0.47
  const c = (1 - Math.abs(2 * 0.47 - 1)) * 0.68, hp = h / 60, x = c * (1 - Math.abs((hp % 2) - 1));
  const m = 0.47 - c / 2;
  const [r, g, b] = hp < 1 ? [c, x, 0] : hp < 2 ? [x, c, 0] : hp < 3 ? [0, c, x]
    : hp < 4 ? [0, x, c] : hp < 5 ? [x, 0, c] : [c, 0, x];
  return [r, g, b].map((v) => Math.round((v + m) * 255));
}
const HUE_RGB = Array.from({ length: HUES }, (_, k) => hueRgb(k * 360 / HUES));
const BG_RGB = hexRgb(BACKGROUND);
// A pixel of the ImageData as one little-endian 32-bit word (r in the low byte; Int32, so that
// the raster loops stay in small integers), and a in 0..1 of colour c over the background.
const pack = ([r, g, b]) => 0xff000000 | (b << 16) | (g << 8) | r;
const over = (c, a) => pack(c.map((v, k) => Math.round(BG_RGB[k] + a * (v - BG_RGB[k]))));

const CAPTIONS = {
  circle: (n) => `${n} agents start on a circle and walk to the opposite point. Colour: the direction of the goal <span class="key"></span>; faint dots: the goals; tails: the last seconds. Each step every agent takes the velocity nearest its wish that avoids the others (ORCA), with no plan shared: they swerve round each other in the centre.`,
  crossing: (n) => `Two blocks of ${n / 2} agents cross at right angles (colour: direction of the goal; faint marks: goals). Each agent avoids the others on its own, each step: the blocks interleave without collisions.`,
  wallgap: (n) => `${n} agents pass a gap in a wall to goals on the other side (colour: direction of the goal). They avoid each other and the wall; the crowd funnels through the gap.`,
  corridor: (n) => `Two groups of ${n / 2} walk head on through a corridor (colour: direction of the goal). They pass each other by stepping aside, with no lanes given.`,
  random: (n) => `${n} agents with random starts and goals (the benchmark scene; colour: direction of the goal). Dense: some agents stay blocked by others standing on their goals.`,
  rooms: (n) => `Navigation: two groups of ${n / 2} (blue, red) swap rooms and leave by their exits (crosses). Each plans a shortest path round the walls and avoids the others on the way; the ringed agent's path is drawn.`,
};
const HINTS = {
  plain: 'Click: add an agent walking through the centre (orange). Drag: draw a wall.',
  rooms: 'Click an agent to select it (its path is drawn); click elsewhere to move its group\'s exit there; drag to draw a wall (the agents re-route).',
};

const $ = (id) => document.getElementById(id);
const canvas = $('canvas');
const ctx = canvas.getContext('2d');

// URL parameter <-> control. Numbers left empty keep the scene's own values.
const NUMBER_PARAMS = ['agents', 'seed', 'radius', 'maxSpeed', 'speed', 'tau', 'tauObst',
  'neighborDist', 'maxNeighbors', 'spf'];
const AGENT_FIELDS = { radius: 'radius', maxSpeed: 'maxSpeed', tau: 'timeHorizon',
  tauObst: 'obstacleTimeHorizon', neighborDist: 'neighborDist', maxNeighbors: 'maxNeighbors' };

const params = new URLSearchParams(location.search);
const simdChoice = params.get('simd') ?? 'auto';
const app = {
  orca: null, scene: null, playing: false, edited: false, golden: new Map(),
  goldenMark: null, view: null, added: [], stepMs: 0, rate: 0,
  rateWindow: { t: 0, ms: 0, agentSteps: 0 }, agentSteps: 0, drag: null,
  colours: null, // the colour bucket of every agent and its goal (colourAgents)
  // counters for the tests: frames drawn, draw calls for the agents in the last frame, panel refreshes,
  // and the time spent stepping and drawing (docs/web.md, "The page")
  frames: 0, agentDraws: 0, statsUpdates: 0, lastStats: 0,
  perf: { frames: 0, stepMs: 0, drawMs: 0, steps: 0, t0: 0 },
};
window.orcaApp = app;

function showError(e) {
  $('error').textContent = e ? String(e.message ?? e) : '';
}

function readControls() {
  const cfg = { scene: $('scene').value };
  for (const p of NUMBER_PARAMS) {
    const v = $(p).value.trim();
    if (v !== '') cfg[p] = Number(v);
  }
  cfg.trails = $('trails').checked;
  cfg.goals = $('goals').checked;
  cfg.nav = $('nav').checked;
  return cfg;
}

function writeControls(cfg) {
  $('scene').value = cfg.scene;
  for (const p of NUMBER_PARAMS) if (cfg[p] !== undefined) $(p).value = cfg[p];
  $('trails').checked = !!cfg.trails;
  $('goals').checked = !!cfg.goals;
  $('nav').checked = !!cfg.nav;
  $('simd').value = simdChoice;
}

function cfgFromUrl() {
  const cfg = { scene: params.get('scene') ?? 'circle', seed: 1, spf: 2 };
  if (!params.has('scene')) cfg.agents = 100;
  for (const p of NUMBER_PARAMS) {
    if (params.has(p)) cfg[p] = Number(params.get(p));
  }
  // trails and goals: on unless the URL says 0
  cfg.trails = params.get('trails') !== '0';
  cfg.goals = params.get('goals') !== '0';
  // navigation: on by default in the rooms scene only (the built-in scenes' golden runs are
  // without it)
  cfg.nav = params.has('nav') ? params.get('nav') === '1' : cfg.scene === 'rooms';
  return cfg;
}

function urlFor(cfg) {
  const q = new URLSearchParams();
  q.set('scene', cfg.scene);
  for (const p of NUMBER_PARAMS) if (cfg[p] !== undefined) q.set(p, String(cfg[p]));
  if (!cfg.trails) q.set('trails', '0');
  if (!cfg.goals) q.set('goals', '0');
  if (cfg.nav !== (cfg.scene === 'rooms')) q.set('nav', cfg.nav ? '1' : '0');
  if (simdChoice !== 'auto') q.set('simd', simdChoice);
  return `${location.pathname}?${q}`;
}

// The golden hashes: "circle agents=100 steps=400 hash=4be6d7e7a7e24a3a" per line (seed 1,
// the scenes' own parameters). Read from the repository when the page is served from it.
async function loadGolden() {
  try {
    const r = await fetch('../test/golden/determinism.txt');
    if (!r.ok) return;
    for (const line of (await r.text()).split('\n')) {
      const m = /^(\w+) agents=(\d+) steps=(\d+) hash=([0-9a-f]{16})$/.exec(line.trim());
      if (m) app.golden.set(m[1], { agents: +m[2], steps: +m[3], hash: m[4] });
    }
  } catch {
    // no golden file: no mark
  }
}

function build() {
  showError(null);
  const cfg = readControls();
  app.cfg = cfg;
  const agent = {};
  for (const [p, field] of Object.entries(AGENT_FIELDS)) {
    if (cfg[p] !== undefined) agent[field] = cfg[p];
  }
  let scene;
  try {
    if (cfg.scene === 'rooms') {
      scene = roomsScene(app.orca, { perGroup: cfg.agents ?? 20, seed: cfg.seed ?? 1,
        navigation: cfg.nav, agent, ...(cfg.speed !== undefined ? { speed: cfg.speed } : {}) });
    } else {
      scene = app.orca.createScene(cfg.scene, {
        agents: cfg.agents ?? 0, seed: cfg.seed ?? 1, agent, speed: cfg.speed,
      });
      if (cfg.nav) scene.setNavigation(true);
    }
  } catch (e) {
    showError(e);
    return;
  }
  if (app.scene) app.scene.destroy();
  app.scene = scene;
  app.edited = false;
  app.added = [];
  app.colours = null;
  app.agentSteps = 0;
  app.stepMs = 0;
  app.rate = 0;
  app.rateWindow = { t: performance.now(), ms: 0, agentSteps: 0 };
  app.rooms = cfg.scene === 'rooms';
  app.goals = ROOMS_GOALS.map((p) => [...p]);
  app.goalMoves = 0; // exits moved so far (each a new goal set: moveRoomsExit)
  app.selected = app.rooms ? scene.sim.agentAt(0) : null;
  $('hint').textContent = app.rooms ? HINTS.rooms : HINTS.plain;
  $('caption').innerHTML = CAPTIONS[cfg.scene](scene.sim.agentCount);
  const g = app.golden.get(cfg.scene);
  app.goldenRun = g && (cfg.seed ?? 1) === 1 && Object.keys(agent).length === 0 && !cfg.nav &&
    cfg.speed === undefined && scene.sim.agentCount === g.agents ? g : null;
  app.goldenMark = null;
  fitView();
  const url = urlFor(cfg);
  history.replaceState(null, '', url);
  $('link').href = url;
  requestFrame();
}

// The world box of the scene: starts, goals and walls, with a margin.
function fitView() {
  const s = app.scene;
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const take = (x, y) => { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); };
  const n = s.sim.agentCount;
  const pos = s.sim.positions();
  const c = colourAgents();
  for (let i = 0; i < n; ++i) {
    take(pos[2 * i], pos[2 * i + 1]);
    if (c.hasGoal[i]) take(c.goals[2 * i], c.goals[2 * i + 1]);
  }
  for (const seg of s.sim.segments()) {
    // walls reach far; keep the view on the agents unless there are none (the rooms: the
    // floor)
    if (n === 0 || app.rooms) { take(...seg.a); take(...seg.b); }
  }
  if (!Number.isFinite(x0)) { x0 = y0 = -20; x1 = y1 = 20; }
  const m = Math.max(x1 - x0, y1 - y0) * 0.04 + 2;
  app.world = { x0: x0 - m, y0: y0 - m, x1: x1 + m, y1: y1 + m };
  resize();
}

function resize() {
  // device pixels, fewer on very large screens (the raster costs per pixel)
  let dpr = window.devicePixelRatio || 1;
  const area = canvas.clientWidth * canvas.clientHeight * dpr * dpr;
  if (area > PIXELS_MAX) dpr *= Math.sqrt(PIXELS_MAX / area);
  const w = Math.max(1, Math.round(canvas.clientWidth * dpr));
  const h = Math.max(1, Math.round(canvas.clientHeight * dpr));
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  if (!app.fb || app.fb.w !== w || app.fb.h !== h) {
    const img = ctx.createImageData(w, h);
    app.fb = { w, h, img, px: new Int32Array(img.data.buffer), base: new Int32Array(w * h),
      stamp: new Int32Array(w * h), ring: Array.from({ length: TRAIL }, () => new Int32Array(0)),
      ringLength: new Int32Array(TRAIL) };
  }
  const W = app.world;
  if (!W) return;
  const scale = Math.min(w / (W.x1 - W.x0), h / (W.y1 - W.y0));
  const cx = (W.x0 + W.x1) / 2, cy = (W.y0 + W.y1) / 2;
  // screen = (world - centre) * scale + canvas centre, y up
  app.view = { scale, cx, cy, ox: w / 2, oy: h / 2, dpr };
  clearTrails();
}

const toScreen = (x, y) => [(x - app.view.cx) * app.view.scale + app.view.ox,
  app.view.oy - (y - app.view.cy) * app.view.scale];
const toWorld = (sx, sy) => [(sx - app.view.ox) / app.view.scale + app.view.cx,
  app.view.cy - (sy - app.view.oy) / app.view.scale];

// --- colours ---------------------------------------------------------------------------
// Every agent's colour bucket and goal point, in index order; computed again when the agent
// count changes (exits) or an agent is added. Buckets 0..HUES-1: the direction from the
// start to the goal (atan2 here is drawing only: the simulation uses no angles); then no
// point goal; then added by a click. The rooms scene: its groups' colours.
function colourAgents() {
  const sc = app.scene;
  const n = sc.sim.agentCount;
  if (app.colours && app.colours.n === n) return app.colours;
  const bucket = new Uint8Array(n);
  const goals = new Float64Array(2 * n);
  const hasGoal = new Uint8Array(n);
  const added = new Set(app.added.map((a) => sc.sim.agentIndex(a.id)));
  const rgb = [...(app.rooms ? GROUP_COLOURS.map(hexRgb) : HUE_RGB), hexRgb(NO_GOAL), hexRgb(ADDED)];
  const none = rgb.length - 2;
  for (let i = 0; i < n; ++i) {
    if (app.rooms) {
      bucket[i] = roomsGroup(sc, i); // the exits are drawn as crosses (drawNavigation)
      continue;
    }
    const g = sc.goal(i);
    bucket[i] = none;
    if (g.kind === 0) {
      goals[2 * i] = g.target[0];
      goals[2 * i + 1] = g.target[1];
      hasGoal[i] = 1;
      const dx = g.target[0] - g.start[0], dy = g.target[1] - g.start[1];
      if (dx !== 0 || dy !== 0) bucket[i] = ((Math.round(Math.atan2(dy, dx) / TAU * HUES) % HUES) + HUES) % HUES;
    }
    if (added.has(i)) bucket[i] = none + 1;
  }
  // packed pixels: the agents, the goal dots, and the trails' shades (0: newest)
  const solid = Int32Array.from(rgb, pack);
  const faint = Int32Array.from(rgb, (c) => over(c, 0.3));
  const trail = new Int32Array(rgb.length * FADES);
  rgb.forEach((c, k) => { for (let l = 0; l < FADES; ++l) trail[k * FADES + l] = over(c, 0.5 * (1 - l / FADES)); });
  app.colours = { n, bucket, goals, hasGoal, rgb, solid, faint, trail };
  return app.colours;
}

// A disc of radius r pixels centred on a pixel: the offsets of the pixels it touches and
// their coverage (0..255, anti-aliased edge), cached by radius.
const stamps = new Map();
function discStamp(r) {
  const key = Math.round(r * 16) / 16;
  let s = stamps.get(key);
  if (s) return s;
  const R = Math.ceil(key + 0.5);
  const dx = [], dy = [], cov = [];
  for (let y = -R; y <= R; ++y) {
    for (let x = -R; x <= R; ++x) {
      const c = Math.min(1, Math.max(0, key + 0.5 - Math.sqrt(x * x + y * y)));
      if (c > 0) { dx.push(x); dy.push(y); cov.push(Math.round(c * 255)); }
    }
  }
  s = { R, dx: Int32Array.from(dx), dy: Int32Array.from(dy), cov: Uint8Array.from(cov) };
  if (stamps.size > 64) stamps.clear();
  stamps.set(key, s);
  return s;
}

// Stamps a disc of radius r at every point of xy (x0 y0 x1 y1 ...; only where keep[i] if
// given) into the frame buffer, in colours[bucket[i]], blending the edge; widens app.drawnBox.
function rasterDiscs(xy, n, r, bucket, colours, keep) {
  const fb = app.fb, px = fb.px, w = fb.w, h = fb.h, v = app.view, box = app.drawnBox;
  const { R, dx, dy, cov } = discStamp(r);
  const m = dx.length;
  for (let i = 0; i < n; ++i) {
    if (keep && !keep[i]) continue;
    const sx = (xy[2 * i] - v.cx) * v.scale + v.ox;
    const sy = v.oy - (xy[2 * i + 1] - v.cy) * v.scale;
    const ix = Math.floor(sx), iy = Math.floor(sy);
    if (ix + R < 0 || iy + R < 0 || ix - R >= w || iy - R >= h) continue;
    const col = colours[bucket[i]];
    const inside = ix - R >= 0 && iy - R >= 0 && ix + R < w && iy + R < h;
    for (let k = 0; k < m; ++k) {
      const x = ix + dx[k], y = iy + dy[k];
      if (!inside && (x < 0 || y < 0 || x >= w || y >= h)) continue;
      const p = y * w + x, a = cov[k];
      if (a === 255) { px[p] = col; continue; }
      // per channel (d * (255 - a) + col * a) / 255, the division as * 257 >> 16
      const d = px[p], b = 255 - a;
      px[p] = 0xff000000 |
        (((((d >> 16) & 255) * b + ((col >> 16) & 255) * a + 128) * 257 >> 16) << 16) |
        (((((d >> 8) & 255) * b + ((col >> 8) & 255) * a + 128) * 257 >> 16) << 8) |
        ((((d & 255) * b + (col & 255) * a + 128) * 257) >> 16);
    }
    box.x0 = Math.min(box.x0, sx - r); box.x1 = Math.max(box.x1, sx + r);
    box.y0 = Math.min(box.y0, sy - r); box.y1 = Math.max(box.y1, sy + r);
  }
}

// The trails: an image of the background and the trails (fb.base) kept step by step. Each
// step writes a dot at every agent's pixel, remembers the step on that pixel (fb.stamp) and
// the pixels in a ring of the last TRAIL steps; a dot still showing the step it was written at
// is repainted a lighter shade every TRAIL / FADES steps and cleared after TRAIL. So a step
// costs a few writes per agent, and a frame one copy of fb.base.
function clearTrails() {
  if (!app.fb) return;
  app.fb.base.fill(pack(BG_RGB));
  app.fb.stamp.fill(0);
  app.fb.ringLength.fill(0);
  app.trailClock = TRAIL;
}

function markTrails() {
  const fb = app.fb, v = app.view, c = colourAgents(), { base, stamp, ring, ringLength } = fb;
  const t = ++app.trailClock;
  for (let l = 1; l <= FADES; ++l) {
    const then = t - l * TRAIL / FADES;
    const slot = then % TRAIL, r = ring[slot], m = ringLength[slot];
    const shade = l < FADES ? l : -1;
    for (let k = 0; k < m; k += 2) {
      const p = r[k];
      if (stamp[p] !== then) continue;
      base[p] = shade < 0 ? pack(BG_RGB) : c.trail[r[k + 1] * FADES + shade];
    }
  }
  const pos = app.scene.sim.positions();
  const n = pos.length / 2, slot = t % TRAIL;
  if (ring[slot].length < 2 * n) ring[slot] = new Int32Array(2 * n);
  const r = ring[slot];
  let m = 0;
  for (let i = 0; i < n; ++i) {
    const x = Math.floor((pos[2 * i] - v.cx) * v.scale + v.ox);
    const y = Math.floor(v.oy - (pos[2 * i + 1] - v.cy) * v.scale);
    if (x < 0 || y < 0 || x >= fb.w || y >= fb.h) continue;
    const p = y * fb.w + x, b = c.bucket[i];
    stamp[p] = t;
    base[p] = c.trail[b * FADES];
    r[m++] = p;
    r[m++] = b;
  }
  ringLength[slot] = m;
}

function agentRadius(sim) {
  return sim.agentCount ? sim.getAgent(sim.agentAt(0)).radius : 1;
}

function draw() {
  if (!app.scene || !app.view || !app.fb) return;
  const t0 = performance.now();
  const sim = app.scene.sim;
  const fb = app.fb, W = fb.w, H = fb.h;
  const c = colourAgents();
  // the background, with the trails
  if (app.cfg.trails) fb.px.set(fb.base);
  else fb.px.fill(pack(BG_RGB));
  // what is drawn, in canvas pixels (for the layout test: app.drawnBoxCss)
  app.drawnBox = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  const box = app.drawnBox;
  const pos = sim.positions();
  const n = pos.length / 2;
  const rs = Math.max(0.75, agentRadius(sim) * app.view.scale);
  if (app.cfg.goals && n <= GOALS_MAX && !app.rooms) {
    rasterDiscs(c.goals, n, Math.max(1, 0.4 * rs), c.bucket, c.faint, c.hasGoal);
  }
  rasterDiscs(pos, n, rs, c.bucket, c.solid, null);
  ctx.putImageData(fb.img, 0, 0);
  app.agentDraws = 1; // the agents, goals and trails: one putImageData
  // walls: one path
  ctx.strokeStyle = '#30343b';
  ctx.lineWidth = Math.max(2, 0.3 * app.view.scale);
  ctx.lineCap = 'round';
  ctx.beginPath();
  for (const seg of sim.segments()) {
    const a = toScreen(...seg.a), b = toScreen(...seg.b);
    ctx.moveTo(...a);
    ctx.lineTo(...b);
    for (const [x, y] of [a, b]) {
      box.x0 = Math.min(box.x0, Math.max(0, x)); box.x1 = Math.max(box.x1, Math.min(W, x));
      box.y0 = Math.min(box.y0, Math.max(0, y)); box.y1 = Math.max(box.y1, Math.min(H, y));
    }
  }
  ctx.stroke();
  if (app.scene.navigation || app.rooms) drawNavigation(pos, rs);
  // the goals of agents added by clicks: crosses
  ctx.strokeStyle = ADDED;
  ctx.lineWidth = 1.5 * app.view.dpr;
  const k = 5 * app.view.dpr;
  ctx.beginPath();
  for (const a of app.added) {
    if (sim.agentIndex(a.id) < 0) continue;
    const [gx, gy] = toScreen(...a.goal);
    ctx.moveTo(gx - k, gy - k); ctx.lineTo(gx + k, gy + k);
    ctx.moveTo(gx - k, gy + k); ctx.lineTo(gx + k, gy - k);
  }
  ctx.stroke();
  if (app.drag && app.drag.moved) {
    ctx.strokeStyle = '#888';
    ctx.setLineDash([6, 4]);
    ctx.beginPath();
    ctx.moveTo(app.drag.sx, app.drag.sy);
    ctx.lineTo(app.drag.ex, app.drag.ey);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  app.frames += 1;
  app.perf.drawMs += performance.now() - t0;
}

// The selected agent's index, or -1 (none selected, or it left by an exit).
function selectedIndex() {
  if (!app.selected) return -1;
  const i = app.scene.sim.agentIndex(app.selected);
  if (i < 0) app.selected = null;
  return i;
}

// Navigation: each goal set's points (crosses), the selected agent (a ring) and the rest of
// its path: straight legs between the corners, arcs of its radius round them.
function drawNavigation(pos, rs) {
  const sc = app.scene;
  const k = 6 * app.view.dpr;
  ctx.lineWidth = 2.5 * app.view.dpr;
  // each group's exit now (a moved exit leaves its old goal set unused)
  if (app.rooms) app.goals.forEach((p, g) => {
    ctx.strokeStyle = GROUP_COLOURS[g % GROUP_COLOURS.length];
    const [gx, gy] = toScreen(...p);
    ctx.beginPath();
    ctx.moveTo(gx - k, gy - k); ctx.lineTo(gx + k, gy + k);
    ctx.moveTo(gx - k, gy + k); ctx.lineTo(gx + k, gy - k);
    ctx.stroke();
  });
  const i = selectedIndex();
  if (i < 0) return;
  const nav = sc.agentNav(i);
  const path = sc.agentPath(i);
  const [px, py] = toScreen(pos[2 * i], pos[2 * i + 1]);
  ctx.strokeStyle = '#1d2430';
  ctx.lineWidth = 2 * app.view.dpr;
  ctx.beginPath();
  ctx.arc(px, py, rs + 3 * app.view.dpr, 0, 2 * Math.PI);
  ctx.stroke();
  if (!nav.navigating || nav.result !== 'ok') return;
  ctx.strokeStyle = '#2a8a4a';
  ctx.setLineDash([5 * app.view.dpr, 4 * app.view.dpr]);
  ctx.beginPath();
  ctx.moveTo(px, py);
  const r = sc.sim.getAgent(app.selected).radius * app.view.scale;
  for (let c = nav.corner; c < path.length; ++c) {
    const { vertex, side, enter, leave } = path[c];
    const [vx, vy] = toScreen(...vertex);
    const [ex, ey] = toScreen(...enter);
    const [lx, ly] = toScreen(...leave);
    ctx.lineTo(ex, ey);
    // the y axis is flipped on screen: counter-clockwise in the world (side +1) is
    // counter-clockwise on the screen too (drawing only; the library uses no angles here)
    ctx.arc(vx, vy, r, Math.atan2(ey - vy, ex - vx), Math.atan2(ly - vy, lx - vx), side > 0);
  }
  ctx.lineTo(...toScreen(...nav.goal));
  ctx.stroke();
  ctx.setLineDash([]);
}

// Moves group g's exit to p: a new exit set, and the group's agents head for it from where
// they are (Scene.setGoal; scenes.mjs, moveRoomsExit).
function moveGoal(g, p) {
  app.goals[g] = p;
  app.goalMoves += 1;
  moveRoomsExit(app.scene, g, `g${g}.${app.goalMoves}`, p);
}


// Steps the scene count times (throughput measured over the steps only; the trails' dots
// count as drawing).
function stepScene(count) {
  if (!app.scene) return;
  const n = app.scene.sim.agentCount;
  let ms = 0;
  let done = 0;
  try {
    for (let k = 0; k < count; ++k) {
      const t0 = performance.now();
      app.scene.step();
      checkGolden();
      ms += performance.now() - t0;
      ++done;
      if (app.cfg.trails) {
        const t1 = performance.now();
        markTrails();
        app.perf.drawMs += performance.now() - t1;
      }
    }
  } catch (e) {
    showError(e);
    setPlaying(false);
  }
  app.perf.stepMs += ms;
  app.perf.steps += done;
  app.stepMs += ms;
  app.agentSteps += n * done;
  app.rateWindow.ms += ms;
  app.rateWindow.agentSteps += n * done;
  if (performance.now() - app.rateWindow.t > 500 || !app.playing) {
    if (app.rateWindow.ms > 0) app.rate = app.rateWindow.agentSteps / (app.rateWindow.ms / 1000);
    app.rateWindow = { t: performance.now(), ms: 0, agentSteps: 0 };
  }
}

function checkGolden() {
  const g = app.goldenRun;
  if (!g || app.edited) return;
  if (app.scene.sim.stepCount === g.steps) {
    const h = app.scene.sim.hash();
    app.goldenMark = { step: g.steps, hash: h, ok: h === g.hash, expected: g.hash };
  }
}

function fmt(x, digits = 3) {
  return Number.isFinite(x) ? x.toPrecision(digits) : String(x);
}

function updateStats() {
  const s = app.scene;
  if (!s) return;
  app.statsUpdates += 1;
  app.lastStats = performance.now();
  const sim = s.sim;
  const steps = sim.stepCount;
  const n = sim.agentCount;
  const lines = [
    `module      ${app.orca.simd ? 'SIMD128' : 'scalar'} (1 worker)`,
    `step        ${steps}`,
    `time        ${(steps * s.dt).toFixed(2)} s`,
    `agents      ${n}   walls ${sim.segmentCount}`,
    `arrived     ${s.arrivedCount}`,
  ];
  if (s.navigation) {
    const ex = s.exited;
    lines.push(`navigation  on: ${s.navUnreachable} without a path`);
    if (ex.count > 0 || app.rooms) lines.push(`exited      ${ex.count}${ex.count ? ` (last at step ${ex.lastStep})` : ''}`);
  }
  lines.push(
    `throughput  ${app.rate ? (app.rate / 1e6).toFixed(3) + ' M agent-steps/s' : '-'}`,
    `overlap     agents ${fmt(100 * s.maxAgentOverlap)}%  walls ${fmt(100 * s.maxWallOverlap)}%`,
    `fallback    ${app.agentSteps ? fmt(100 * s.fallbackTotal / app.agentSteps) + '%' : '-'} of solves`,
    `hash        ${s.hash()}`);
  $('stats').textContent = lines.join('\n');
  const el = $('golden');
  const m = app.goldenMark;
  if (m) {
    el.className = m.ok ? 'ok' : 'bad';
    el.textContent = m.ok
      ? `\u2713 step ${m.step}: hash ${m.hash} = native golden hash`
      : `\u2717 step ${m.step}: hash ${m.hash} differs from the native ${m.expected}`;
  } else if (app.goldenRun && !app.edited) {
    el.className = '';
    el.textContent = `golden checkpoint: step ${app.goldenRun.steps}`;
  } else {
    el.className = '';
    el.textContent = app.edited ? 'edited: no golden checkpoint' : '';
  }
}

function setPlaying(on) {
  app.playing = on;
  $('play').textContent = on ? 'Pause' : 'Play';
  requestFrame();
}

// One frame: steps when playing, draws, refreshes the panel (while playing at most every
// STATS_MS), and asks for the next frame only while playing. Anything that changes what is
// shown calls requestFrame(); a paused page then draws once and stays idle.
let framePending = false;
function requestFrame() {
  if (framePending) return;
  framePending = true;
  requestAnimationFrame(frame);
}
function frame() {
  framePending = false;
  if (!app.scene) return;
  if (app.playing) {
    const spf = Math.max(1, Math.min(100, Math.floor(app.cfg.spf ?? 1)));
    stepScene(spf);
  }
  draw();
  app.perf.frames += 1;
  if (!app.playing || performance.now() - app.lastStats >= STATS_MS) updateStats();
  if (app.playing) requestFrame();
}

/** Steps (without drawing each step) until the step count is target; resolves when there,
 * or when a step no longer advances it (a simulation without agents, e.g. after every agent
 * left by an exit, does not count its steps; or a refused step). */
app.runTo = async function runTo(target) {
  while (app.scene && app.scene.sim.stepCount < target) {
    const before = app.scene.sim.stepCount;
    stepScene(Math.min(50, target - before));
    if (app.scene.sim.stepCount === before) break;
    await new Promise((r) => setTimeout(r, 0));
  }
  draw();
  updateStats();
};
app.state = () => ({
  step: app.scene.sim.stepCount, hash: app.scene.sim.hash(), agents: app.scene.sim.agentCount,
  walls: app.scene.sim.segmentCount, simd: app.orca.simd, golden: app.goldenMark,
  maxWallOverlap: app.scene.maxWallOverlap, maxAgentOverlap: app.scene.maxAgentOverlap,
  navigation: app.scene.navigation, sceneHash: app.scene.hash(), exited: app.scene.exited,
  unreachable: app.scene.navUnreachable, selected: app.selected ? selectedIndex() : -1,
  goals: app.rooms ? app.goals.map((p) => [...p]) : null,
});
app.toScreenCss = (x, y) => {
  const [sx, sy] = toScreen(x, y);
  const r = canvas.getBoundingClientRect();
  return [r.left + sx / app.view.dpr, r.top + sy / app.view.dpr];
};
/** The box of what the last frame drew (walls within the canvas, agents, goals), in CSS
 * pixels of the page: { left, top, right, bottom }. */
app.drawnBoxCss = () => {
  const b = app.drawnBox;
  const r = canvas.getBoundingClientRect();
  const d = app.view.dpr;
  return { left: r.left + b.x0 / d, top: r.top + b.y0 / d, right: r.left + b.x1 / d, bottom: r.top + b.y1 / d };
};
/** Starts (or restarts) the frame-time counters; app.perf then holds the frames, steps and
 * milliseconds spent stepping and drawing since. */
app.resetPerf = () => { app.perf = { frames: 0, stepMs: 0, drawMs: 0, steps: 0, t0: performance.now() }; };

// --- mouse: click adds an agent, drag draws a wall ---------------------------------------
function canvasPoint(ev) {
  const r = canvas.getBoundingClientRect();
  return [(ev.clientX - r.left) * app.view.dpr, (ev.clientY - r.top) * app.view.dpr];
}
canvas.addEventListener('pointerdown', (ev) => {
  const [sx, sy] = canvasPoint(ev);
  app.drag = { sx, sy, ex: sx, ey: sy, moved: false };
  canvas.setPointerCapture(ev.pointerId);
});
canvas.addEventListener('pointermove', (ev) => {
  if (!app.drag) return;
  const [ex, ey] = canvasPoint(ev);
  app.drag.ex = ex;
  app.drag.ey = ey;
  if (Math.hypot(ex - app.drag.sx, ey - app.drag.sy) > 6 * app.view.dpr) app.drag.moved = true;
  if (app.drag.moved) requestFrame(); // the dashed line
});
canvas.addEventListener('pointerup', () => {
  const d = app.drag;
  app.drag = null;
  if (!d || !app.scene) return;
  try {
    const sim = app.scene.sim;
    if (d.moved) {
      sim.addSegment(toWorld(d.sx, d.sy), toWorld(d.ex, d.ey));
    } else if (app.rooms) {
      // an agent near the click: select it; else move the selected agent's group's exit
      const p = toWorld(d.sx, d.sy);
      const pos = sim.positions();
      let best = -1, bd = Infinity;
      for (let i = 0; i < pos.length / 2; ++i) {
        const dd = Math.hypot(pos[2 * i] - p[0], pos[2 * i + 1] - p[1]);
        if (dd < bd) { bd = dd; best = i; }
      }
      const radius = best >= 0 ? sim.getAgent(sim.agentAt(best)).radius : 0;
      if (best >= 0 && bd <= Math.max(2 * radius, 8 / app.view.scale)) {
        app.selected = sim.agentAt(best);
      } else {
        const i = selectedIndex();
        moveGoal(i >= 0 ? roomsGroup(app.scene, i) : 0, p);
      }
    } else {
      const p = toWorld(d.sx, d.sy);
      // the goal: the point opposite through the view's centre, as in the circle scene
      const goal = [2 * app.view.cx - p[0], 2 * app.view.cy - p[1]];
      const base = sim.agentCount ? sim.getAgent(sim.agentAt(0)) : app.orca.defaultAgent();
      const speed = sim.agentCount ? app.scene.goal(0).speed : app.orca.defaultGoal().speed;
      const def = { ...base, position: p, velocity: [0, 0], preferredVelocity: [0, 0] };
      const id = app.scene.addAgent(def, { target: goal, speed });
      app.added.push({ id, goal });
      app.colours = null;
    }
    app.edited = true;
    app.goldenMark = null;
    showError(null);
  } catch (e) {
    showError(e);
  }
  requestFrame();
});

// --- controls -------------------------------------------------------------------------------
$('play').addEventListener('click', () => setPlaying(!app.playing));
$('stepBtn').addEventListener('click', () => { setPlaying(false); stepScene(1); requestFrame(); });
$('reset').addEventListener('click', () => build());
$('scene').addEventListener('change', () => {
  $('nav').checked = $('scene').value === 'rooms'; // each scene's default
  $('agents').value = '';
  build();
});
for (const id of ['agents', 'seed', 'radius', 'maxSpeed', 'speed', 'tau', 'tauObst',
  'neighborDist', 'maxNeighbors']) {
  $(id).addEventListener('change', () => build());
}
function viewChanged() {
  app.cfg = readControls();
  const url = urlFor(app.cfg);
  history.replaceState(null, '', url);
  $('link').href = url;
  requestFrame();
}
$('spf').addEventListener('change', viewChanged);
$('goals').addEventListener('change', viewChanged);
$('trails').addEventListener('change', () => { clearTrails(); viewChanged(); });
$('nav').addEventListener('change', () => {
  // live: the agents plan (or stop planning) at the next step
  try {
    app.scene.setNavigation($('nav').checked);
  } catch (e) {
    showError(e);
  }
  app.edited = true;
  app.goldenMark = null;
  viewChanged();
});
$('simd').addEventListener('change', () => {
  const q = new URLSearchParams(location.search);
  q.set('simd', $('simd').value);
  location.search = q.toString();
});
new ResizeObserver(() => { resize(); requestFrame(); }).observe($('main'));

async function main() {
  const cfg = cfgFromUrl();
  writeControls(cfg);
  // the settings start open where there is room for them beside the scene
  $('settings').open = window.matchMedia('(min-width: 760px) and (min-height: 700px)').matches;
  const simd = simdChoice === 'auto' ? 'auto' : simdChoice === '1';
  if (simd === true && !simdSupported()) showError('this browser has no WebAssembly SIMD128');
  [app.orca] = await Promise.all([loadOrca({ simd }), loadGolden()]);
  build();
  const target = Number(params.get('steps') ?? 0);
  if (target > 0) await app.runTo(target);
  // plays from the start unless the URL says play=0, or runs to a step (steps=N: paused
  // there unless play=1)
  setPlaying(params.has('play') ? params.get('play') === '1' : !(target > 0));
  app.ready = true;
  requestFrame();
}
main().catch((e) => { showError(e); console.error(e); });
