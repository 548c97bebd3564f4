// SPDX-License-Identifier: MIT
// The demo page (web/index.html, docs/web.md "The page"): the built-in scenes of orca.mjs on a
// canvas, their parameters in the URL, a panel with the state hash and a mark when it equals
// the native golden hash (test/golden/determinism.txt) at the golden step; navigation (any
// scene, and the rooms scene of scenes.mjs: a selected agent's path, click to move its group's
// exit, walls drawn with the mouse re-route the agents at the next step).
//
// The simulation runs in a module Worker (page-worker.mjs over page-sim.mjs); this thread
// draws. For every frame the page sends { type: 'frame', steps, buffer } and the worker
// answers with the positions (copied into the ArrayBuffer the page handed back; transferred
// both ways), the colours, and what else is drawn: walls, exits, the selected agent's path,
// and four times a second the panel's figures. When the worker is behind, the request for
// frame k+1 goes out before frame k is drawn, so the worker steps while the page draws and a
// frame costs about the larger of the two, not their sum; the worker is at most AHEAD frames
// ahead of the one shown. Edits
// (a click, a drag, the navigation box) are messages too, handled in order between frames.
// Without module Workers (or with ?worker=0) the same simulation side runs on this thread
// behind a MessageChannel: the same messages, and the costs add up.
//
// Drawing: every agent is coloured by the direction from its start to its goal (one of HUES
// buckets round the colour wheel; the rooms scene: by group), its goal is a faint dot of that
// colour and its last TRAIL steps a fading trail. Agents, goals and trails are rasterised into
// one ImageData by the page (discs with anti-aliased edges from a precomputed stamp) and put on
// the canvas with one putImageData per frame, whatever the agent count; walls, paths and marks
// are drawn on top as vector paths. The page draws only when something changed: while
// playing, once per frame the worker delivers (at most one per requestAnimationFrame); while
// paused, none (an edit, a resize or a button asks for one frame).
import { simdSupported } from './orca.mjs';
import { serve, HUES, GROUPS, TRAIL } from './page-sim.mjs';

const GROUP_COLOURS = ['#3f6fc4', '#c4473f'];
const NO_GOAL = '#6b7280'; // agents without a point goal
const ADDED = '#e07a1f'; // agents added by clicks
const BACKGROUND = '#fbfbfc';
const FADES = 4; // the shades a trail fades through (each TRAIL / FADES steps)
const GOALS_MAX = 5000; // goal dots are drawn up to this many agents
const STATS_MS = 250; // the panel (and its hash) refreshes at most this often while playing
const PIXELS_MAX = 1920 * 1200; // the canvas's backing store: at most this many pixels
const AHEAD = 2; // frames asked for or delivered and not yet drawn, while playing

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

const params = new URLSearchParams(location.search);
const simdChoice = params.get('simd') ?? 'auto';
const workerChoice = params.get('worker') !== '0'; // worker=0: the simulation on this thread
const app = {
  simd: null, where: null, gen: 0, playing: false, golden: new Map(), view: null, drag: null,
  rooms: false, world: null, palette: null, cfg: null,
  shown: null, // the frame drawn last (the worker's answer), kept for redraws
  step: 0, // its step
  walls: [], goalDots: null, // the latest walls and goal dots (sent when they change)
  // frames asked for and not answered, answered and not drawn, buffers to hand back, steps
  // owed (Step), an edit to show (a frame of no steps), when the panel's figures were asked for
  pipe: { inFlight: 0, queue: [], free: [], owed: 0, dirty: false, statsAsked: -Infinity },
  // counters for the tests: frames drawn, draw calls for the agents in the last frame, panel
  // refreshes; app.perf: frames, steps and the time spent stepping and drawing (resetPerf)
  frames: 0, agentDraws: 0, statsUpdates: 0, perf: null,
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
  if (!workerChoice) q.set('worker', '0');
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

// --- the simulation: a module Worker, or this thread ---------------------------------------
// request(msg) posts msg with an id; the answer with that id resolves it (or rejects it with
// the simulation's error). Answers come in the order of the messages.
const pending = new Map();
let nextId = 1;
let port = null;
function request(msg, transfer = []) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    port.postMessage({ ...msg, id }, transfer);
  });
}
function answered({ data: m }) {
  const p = pending.get(m.id);
  if (!p) return;
  pending.delete(m.id);
  if (m.error) p.reject(Object.assign(new Error(m.error.message), { status: m.error.status }));
  else p.resolve(m);
}

// Starts the simulation side and loads orca.mjs there: in a module Worker when the browser
// has them (and the URL does not say worker=0), else on this thread. (A module that cannot be
// loaded is an error either way.)
async function connect(simd) {
  if (workerChoice && typeof Worker === 'function') {
    let worker = null;
    let started = null;
    try {
      worker = new Worker(new URL('./page-worker.mjs', import.meta.url), { type: 'module' });
      // a browser without module Workers fails to start it: an error event before the answer
      const failed = new Promise((resolve) => worker.addEventListener('error', (e) => {
        e.preventDefault();
        resolve(e.message || 'the module Worker did not start');
      }, { once: true }));
      port = worker;
      worker.onmessage = answered;
      started = request({ type: 'init', simd }).then((r) => ({ r }));
      const first = await Promise.race([started, failed]);
      if (first.r) {
        worker.addEventListener('error', (e) => showError(`the simulation's Worker failed: ${e.message}`));
        app.where = 'worker';
        return first.r;
      }
      console.warn(`orca: no module Worker (${first}); the simulation runs on the page's thread`);
    } catch (e) {
      if (started) throw e; // the worker answered: orca.mjs could not load the module
      console.warn(`orca: no module Worker (${e.message}); the simulation runs on the page's thread`);
    }
    worker?.terminate();
    pending.clear();
  }
  const channel = new MessageChannel();
  serve(channel.port2);
  port = channel.port1;
  port.onmessage = answered;
  app.where = 'page';
  return request({ type: 'init', simd });
}

// --- frames ---------------------------------------------------------------------------------
// The pipeline: postFrame asks for a frame; its answer is queued (received) and drawn at the
// next animation frame (frame). While playing, AHEAD frames are asked for or wait to be drawn:
// when the worker is behind, two requests are on their way and it steps frame k+1 while this
// thread draws frame k; when it is ahead, the next request goes out after the next drawing.
function spf() { return Math.max(1, Math.min(100, Math.floor(app.cfg.spf ?? 1))); }

function postFrame(opts) {
  const pipe = app.pipe;
  const buffer = pipe.free.pop() ?? null;
  const now = performance.now();
  const stats = !app.playing || opts.until !== undefined || now - pipe.statsAsked >= STATS_MS;
  if (stats) pipe.statsAsked = now;
  pipe.inFlight += 1;
  return new Promise((drawn) => {
    request({ type: 'frame', trail: app.cfg.trails ? TRAIL : 0, stats, playing: app.playing, ...opts, buffer },
      buffer ? [buffer] : [])
      .then((m) => { pipe.inFlight -= 1; m.drawn = drawn; received(m); },
        (e) => { pipe.inFlight -= 1; showError(e); setPlaying(false); drawn(null); });
  });
}

// Asks for the next frame if one is due: while playing, whenever fewer than AHEAD frames are
// asked for or wait to be drawn (so that a worker that is behind finds the next request
// waiting when it finishes a frame); paused, when none is on its way: the steps owed (Step),
// or an edit to show (a frame of no steps).
function pump() {
  const pipe = app.pipe;
  if (!app.gen) return;
  if (app.playing) {
    if (pipe.inFlight + pipe.queue.length < AHEAD) {
      pipe.dirty = false;
      postFrame({ steps: spf() });
    }
  } else if (pipe.inFlight === 0 && pipe.owed > 0) {
    const steps = pipe.owed;
    pipe.owed = 0;
    pipe.dirty = false;
    postFrame({ steps });
  } else if (pipe.inFlight === 0 && pipe.dirty) {
    pipe.dirty = false;
    postFrame({ steps: 0 });
  }
}

function recycle(m) {
  if (m.pos && app.pipe.free.length < AHEAD + 1) app.pipe.free.push(m.pos.buffer);
}

function received(m) {
  if (m.gen !== app.gen) { // a frame of the scene before a Reset or a new scene
    recycle(m);
    m.drawn(null);
    pump();
    return;
  }
  // walls and goal dots come when they changed; every frame keeps the latest
  if (m.walls) app.walls = m.walls;
  if (m.goals) app.goalDots = m.goals;
  m.walls = app.walls;
  m.goalDots = app.goalDots;
  if (app.perf && m.done > 0) app.perf.stepSpans.push(m.span);
  app.pipe.queue.push(m);
  requestFrame();
  pump();
}

// Takes frame m as the one shown: marks its steps' trails, recycles the previous frame's
// buffer, counts it.
function show(m) {
  if (m.error) {
    showError(m.error.message);
    setPlaying(false);
  }
  if (app.cfg.trails && m.trail) {
    if (m.cleared) clearTrails(); // more steps than a trail lasts: only the last TRAIL count
    let p = 0, b = 0;
    for (const n of m.counts) {
      markTrails(m.pos.subarray(p, p + 2 * n), m.bucket.subarray(b, b + n), n);
      p += 2 * n;
      b += n;
    }
  }
  if (app.shown) recycle(app.shown);
  app.shown = m;
  app.step = m.step;
  if (app.perf) {
    app.perf.frames += 1;
    app.perf.steps += m.done;
    app.perf.stepMs += m.stepMs;
  }
}

// --- the scene ------------------------------------------------------------------------------
async function build() {
  showError(null);
  const cfg = readControls();
  app.cfg = cfg;
  let b;
  try {
    b = await request({ type: 'build', cfg, golden: app.golden.get(cfg.scene) ?? null });
  } catch (e) {
    showError(e);
    return;
  }
  // frames of the scene before are not drawn
  const pipe = app.pipe;
  for (const m of pipe.queue) { recycle(m); m.drawn(null); }
  pipe.queue = [];
  if (app.shown) recycle(app.shown);
  app.shown = null;
  app.gen = b.gen;
  app.walls = [];
  app.goalDots = null;
  app.step = 0;
  app.rooms = b.rooms;
  app.palette = palette(b.rooms);
  app.world = b.world;
  $('hint').textContent = app.rooms ? HINTS.rooms : HINTS.plain;
  $('caption').innerHTML = CAPTIONS[cfg.scene](b.agents);
  resize();
  const url = urlFor(cfg);
  history.replaceState(null, '', url);
  $('link').href = url;
  pipe.dirty = true;
  pump();
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
// The colour of each bucket (page-sim.mjs computes every agent's bucket) as packed pixels: the
// agents, the goal dots, and the trails' shades (0: newest).
function palette(rooms) {
  const rgb = [...(rooms ? GROUP_COLOURS.slice(0, GROUPS).map(hexRgb) : HUE_RGB), hexRgb(NO_GOAL), hexRgb(ADDED)];
  const solid = Int32Array.from(rgb, pack);
  const faint = Int32Array.from(rgb, (c) => over(c, 0.3));
  const trail = new Int32Array(rgb.length * FADES);
  rgb.forEach((c, k) => { for (let l = 0; l < FADES; ++l) trail[k * FADES + l] = over(c, 0.5 * (1 - l / FADES)); });
  return { solid, faint, trail };
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
// costs a few writes per agent, and a frame one copy of fb.base. The worker sends the
// positions of every step of a frame (its last TRAIL) for this.
function clearTrails() {
  if (!app.fb) return;
  app.fb.base.fill(pack(BG_RGB));
  app.fb.stamp.fill(0);
  app.fb.ringLength.fill(0);
  app.trailClock = TRAIL;
}

function markTrails(pos, bucket, n) {
  const fb = app.fb, v = app.view, c = app.palette, { base, stamp, ring, ringLength } = fb;
  if (!v || !c) return;
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
  const slot = t % TRAIL;
  if (ring[slot].length < 2 * n) ring[slot] = new Int32Array(2 * n);
  const r = ring[slot];
  let m = 0;
  for (let i = 0; i < n; ++i) {
    const x = Math.floor((pos[2 * i] - v.cx) * v.scale + v.ox);
    const y = Math.floor(v.oy - (pos[2 * i + 1] - v.cy) * v.scale);
    if (x < 0 || y < 0 || x >= fb.w || y >= fb.h) continue;
    const p = y * fb.w + x, b = bucket[i];
    stamp[p] = t;
    base[p] = c.trail[b * FADES];
    r[m++] = p;
    r[m++] = b;
  }
  ringLength[slot] = m;
}

// Draws the frame shown (app.shown).
function draw() {
  const f = app.shown;
  if (!f || !app.view || !app.fb) return;
  const fb = app.fb, W = fb.w, H = fb.h, c = app.palette;
  // the background, with the trails
  if (app.cfg.trails) fb.px.set(fb.base);
  else fb.px.fill(pack(BG_RGB));
  // what is drawn, in canvas pixels (for the layout test: app.drawnBoxCss)
  app.drawnBox = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  const box = app.drawnBox;
  // the current positions: the last record of the frame
  const n = f.counts[f.counts.length - 1];
  const pos = f.pos.subarray(f.pos.length - 2 * n);
  const bucket = f.bucket.subarray(f.bucket.length - n);
  const rs = Math.max(0.75, f.radius * app.view.scale);
  const g = f.goalDots;
  if (app.cfg.goals && n <= GOALS_MAX && !app.rooms && g && g.hasGoal.length === n) {
    rasterDiscs(g.goals, n, Math.max(1, 0.4 * rs), bucket, c.faint, g.hasGoal);
  }
  rasterDiscs(pos, n, rs, bucket, c.solid, null);
  ctx.putImageData(fb.img, 0, 0);
  app.agentDraws = 1; // the agents, goals and trails: one putImageData
  // walls: one path
  ctx.strokeStyle = '#30343b';
  ctx.lineWidth = Math.max(2, 0.3 * app.view.scale);
  ctx.lineCap = 'round';
  ctx.beginPath();
  for (const [wa, wb] of f.walls) {
    const a = toScreen(...wa), b = toScreen(...wb);
    ctx.moveTo(...a);
    ctx.lineTo(...b);
    for (const [x, y] of [a, b]) {
      box.x0 = Math.min(box.x0, Math.max(0, x)); box.x1 = Math.max(box.x1, Math.min(W, x));
      box.y0 = Math.min(box.y0, Math.max(0, y)); box.y1 = Math.max(box.y1, Math.min(H, y));
    }
  }
  ctx.stroke();
  if (f.nav) drawNavigation(f.nav, rs);
  // the goals of agents added by clicks: crosses
  if (f.added) {
    ctx.strokeStyle = ADDED;
    ctx.lineWidth = 1.5 * app.view.dpr;
    const k = 5 * app.view.dpr;
    ctx.beginPath();
    for (const goal of f.added) {
      const [gx, gy] = toScreen(...goal);
      ctx.moveTo(gx - k, gy - k); ctx.lineTo(gx + k, gy + k);
      ctx.moveTo(gx - k, gy + k); ctx.lineTo(gx + k, gy - k);
    }
    ctx.stroke();
  }
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
}

// Navigation: each group's exit (crosses), the selected agent (a ring) and the rest of its
// path: straight legs between the corners, arcs of its radius round them.
function drawNavigation(navDrawn, rs) {
  const k = 6 * app.view.dpr;
  ctx.lineWidth = 2.5 * app.view.dpr;
  // each group's exit now (a moved exit leaves its old goal set unused)
  if (navDrawn.exits) navDrawn.exits.forEach((p, g) => {
    ctx.strokeStyle = GROUP_COLOURS[g % GROUP_COLOURS.length];
    const [gx, gy] = toScreen(...p);
    ctx.beginPath();
    ctx.moveTo(gx - k, gy - k); ctx.lineTo(gx + k, gy + k);
    ctx.moveTo(gx - k, gy + k); ctx.lineTo(gx + k, gy - k);
    ctx.stroke();
  });
  const sel = navDrawn.selected;
  if (!sel) return;
  const { nav, path } = sel;
  const [px, py] = toScreen(...sel.p);
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
  const r = sel.radius * app.view.scale;
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

function fmt(x, digits = 3) {
  return Number.isFinite(x) ? x.toPrecision(digits) : String(x);
}

// The panel, from the figures the simulation sent (page-sim.mjs, stats()).
function updateStats(s) {
  app.statsUpdates += 1;
  const lines = [
    `module      ${app.simd ? 'SIMD128' : 'scalar'}, ${app.where === 'worker' ? 'in a Worker' : 'on the page\'s thread'}`,
    `step        ${s.step}`,
    `time        ${s.time.toFixed(2)} s`,
    `agents      ${s.agents}   walls ${s.walls}`,
    `arrived     ${s.arrived}`,
  ];
  if (s.navigation) {
    const ex = s.exited;
    lines.push(`navigation  on: ${s.unreachable} without a path`);
    if (ex.count > 0 || s.rooms) lines.push(`exited      ${ex.count}${ex.count ? ` (last at step ${ex.lastStep})` : ''}`);
  }
  lines.push(
    `throughput  ${s.rate ? (s.rate / 1e6).toFixed(3) + ' M agent-steps/s' : '-'}`,
    `overlap     agents ${fmt(100 * s.maxAgentOverlap)}%  walls ${fmt(100 * s.maxWallOverlap)}%`,
    `fallback    ${s.agentSteps ? fmt(100 * s.fallbackTotal / s.agentSteps) + '%' : '-'} of solves`,
    `hash        ${s.hash}`);
  $('stats').textContent = lines.join('\n');
  const el = $('golden');
  const m = s.goldenMark;
  if (m) {
    el.className = m.ok ? 'ok' : 'bad';
    el.textContent = m.ok
      ? `\u2713 step ${m.step}: hash ${m.hash} = native golden hash`
      : `\u2717 step ${m.step}: hash ${m.hash} differs from the native ${m.expected}`;
  } else if (s.goldenSteps !== null && !s.edited) {
    el.className = '';
    el.textContent = `golden checkpoint: step ${s.goldenSteps}`;
  } else {
    el.className = '';
    el.textContent = s.edited ? 'edited: no golden checkpoint' : '';
  }
}

function setPlaying(on) {
  app.playing = on;
  $('play').textContent = on ? 'Pause' : 'Play';
  if (!on) app.pipe.dirty = true; // one more frame, with the panel, where the run stopped
  pump();
}

// One animation frame: takes the oldest frame the worker delivered, marks its trails, draws it
// and refreshes the panel when the frame brought its figures. The next frame is asked for
// before drawing when no other frame waits (the worker is behind: it steps while this one is
// drawn), else after drawing (a frame is ready for the next animation frame, and the worker's
// stepping does not compete with the drawing for a core when the machine has only one free).
// Anything else that changes what is shown (a resize, the settings, a drag) calls
// requestFrame() to draw the frame shown again; a paused page then draws once and stays idle.
let framePending = false;
function requestFrame() {
  if (framePending) return;
  framePending = true;
  requestAnimationFrame(frame);
}
function frame() {
  framePending = false;
  const m = app.pipe.queue.shift();
  if (app.pipe.queue.length === 0) pump();
  const t0 = performance.now();
  if (m) show(m);
  draw();
  const t1 = performance.now();
  if (app.perf) {
    app.perf.draws += 1;
    app.perf.drawMs += t1 - t0;
    app.perf.drawSpans.push([performance.timeOrigin + t0, performance.timeOrigin + t1]);
  }
  if (m?.stats) updateStats(m.stats);
  pump();
  if (app.pipe.queue.length) requestFrame();
  m?.drawn(m);
}

// --- for the tests (web/test/browser-test.mjs) ------------------------------------------------
/** Steps (without drawing each step) until the step count is target; resolves when that frame
 * is drawn, or when a step no longer advances it (a simulation without agents, e.g. after
 * every agent left by an exit, does not count its steps; or a refused step). */
app.runTo = (target) => postFrame({ until: target }).then(() => undefined);
/** The simulation's state now (after every message sent before): step, hashes, counts, the
 * golden mark, the rooms' selection and exits, the agents added by clicks. */
app.state = () => request({ type: 'state' }).then(({ id, ...s }) => s);
/** A Scene ('scene') or Sim ('sim') method called (or property read) in the simulation:
 * app.call('scene', 'agentPath', 0). */
app.call = (target, method, ...args) => request({ type: 'call', target, method, args }).then((r) => r.value);
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
/** Starts (or restarts) the frame counters: app.perf then holds the frames delivered and
 * drawn, their steps, the stepping time (the simulation's, per frame), the drawing time (this
 * thread's: trails, raster, putImageData, vector marks; every draw) and when each stepping
 * and drawing ran (performance.timeOrigin + now, in ms). */
app.resetPerf = () => {
  app.perf = { frames: 0, draws: 0, steps: 0, stepMs: 0, drawMs: 0, t0: performance.now(),
    stepSpans: [], drawSpans: [] };
};
/** The figures since resetPerf: frames per second (frames delivered and drawn), frameMs (ms
 * per such frame), stepMs (stepping per step), stepFrameMs (stepping per frame), drawMs
 * (drawing per draw), overlap (the share of the drawing time during which the simulation was
 * stepping), where ('worker' or 'page'). */
app.perfSummary = () => {
  const p = app.perf;
  const s = (performance.now() - p.t0) / 1000;
  let both = 0, drawn = 0, k = 0;
  const steps = p.stepSpans;
  for (const [d0, d1] of p.drawSpans) {
    drawn += d1 - d0;
    while (k < steps.length && steps[k][1] <= d0) ++k;
    for (let j = k; j < steps.length && steps[j][0] < d1; ++j) {
      both += Math.max(0, Math.min(d1, steps[j][1]) - Math.max(d0, steps[j][0]));
    }
  }
  return { seconds: s, frames: p.frames, draws: p.draws, steps: p.steps, fps: p.frames / s,
    frameMs: 1000 * s / p.frames, stepMs: p.stepMs / p.steps, stepFrameMs: p.stepMs / p.frames,
    drawMs: p.drawMs / p.draws, overlap: drawn > 0 ? both / drawn : 0, where: app.where };
};

// --- mouse: click adds an agent, drag draws a wall ---------------------------------------
function canvasPoint(ev) {
  const r = canvas.getBoundingClientRect();
  return [(ev.clientX - r.left) * app.view.dpr, (ev.clientY - r.top) * app.view.dpr];
}
// An edit: a message to the simulation (handled after the frames asked for before it), then a
// frame to show it (the next one while playing).
function edit(msg) {
  request(msg).then(() => showError(null), showError);
  app.pipe.dirty = true;
  pump();
}
canvas.addEventListener('pointerdown', (ev) => {
  if (!app.view) return;
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
  if (!d || !app.gen) return;
  const p = toWorld(d.sx, d.sy);
  if (d.moved) {
    edit({ type: 'addSegment', a: p, b: toWorld(d.ex, d.ey) });
  } else if (app.rooms) {
    // an agent near the click: select it; else move the selected agent's group's exit
    edit({ type: 'click', p, pick: 8 / app.view.scale });
  } else {
    // the goal: the point opposite through the view's centre, as in the circle scene
    edit({ type: 'addAgent', p, goal: [2 * app.view.cx - p[0], 2 * app.view.cy - p[1]] });
  }
  requestFrame(); // without the dashed line
});

// --- controls -------------------------------------------------------------------------------
$('play').addEventListener('click', () => setPlaying(!app.playing));
$('stepBtn').addEventListener('click', () => {
  app.pipe.owed += 1; // one frame of one step, with the panel
  setPlaying(false);
});
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
  if (app.gen) edit({ type: 'setNavigation', on: $('nav').checked });
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
  app.cfg = cfg;
  // the settings start open where there is room for them beside the scene
  $('settings').open = window.matchMedia('(min-width: 760px) and (min-height: 700px)').matches;
  const simd = simdChoice === 'auto' ? 'auto' : simdChoice === '1';
  if (simd === true && !simdSupported()) showError('this browser has no WebAssembly SIMD128');
  const [loaded] = await Promise.all([connect(simd), loadGolden()]);
  app.simd = loaded.simd;
  await build();
  const target = Number(params.get('steps') ?? 0);
  if (target > 0) await app.runTo(target);
  // plays from the start unless the URL says play=0, or runs to a step (steps=N: paused
  // there unless play=1)
  setPlaying(params.has('play') ? params.get('play') === '1' : !(target > 0));
  app.ready = true;
}
main().catch((e) => { showError(e); console.error(e); });
