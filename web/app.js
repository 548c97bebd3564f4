// SPDX-License-Identifier: MIT
// The demo page (web/index.html): the built-in scenes of orca.mjs on a canvas, their
// parameters in the URL, a stats panel with the state hash and a mark when it equals the
// native golden hash (test/golden/determinism.txt) at the golden step; navigation (any scene,
// and the rooms scene of scenes.mjs: a selected agent's path, click to move its group's exit,
// walls drawn with the mouse re-route the agents at the next step).
import { loadOrca, simdSupported } from './orca.mjs';
import { roomsScene, roomsGroup, moveRoomsExit, ROOMS_GOALS } from './scenes.mjs';

const GROUP_COLOURS = ['#3f6fc4', '#c4473f'];
const HINTS = {
  plain: 'Click: add an agent walking through the centre. Drag: draw a wall. Empty fields keep the scene\'s values (docs/scenarios.md).',
  rooms: 'Rooms: two groups swap rooms and leave by their exits (x). Click an agent to select it (its path is drawn); click elsewhere to move its group\'s exit there; drag to draw a wall (the agents re-route).',
};

const $ = (id) => document.getElementById(id);
const canvas = $('canvas');
const trailCanvas = $('trailCanvas');
const ctx = canvas.getContext('2d');
const tctx = trailCanvas.getContext('2d');

// URL parameter <-> control. Numbers left empty keep the scene's own values.
const NUMBER_PARAMS = ['agents', 'seed', 'radius', 'maxSpeed', 'speed', 'tau', 'tauObst',
  'neighborDist', 'maxNeighbors', 'spf'];
const AGENT_FIELDS = { radius: 'radius', maxSpeed: 'maxSpeed', tau: 'timeHorizon',
  tauObst: 'obstacleTimeHorizon', neighborDist: 'neighborDist', maxNeighbors: 'maxNeighbors' };

const params = new URLSearchParams(location.search);
const simdChoice = params.get('simd') ?? 'auto';
const app = {
  orca: null, scene: null, playing: false, edited: false, golden: new Map(),
  goldenMark: null, view: null, added: [], stepMs: 0, stepAgents: 0, rate: 0,
  rateWindow: { t: 0, ms: 0, agentSteps: 0 }, agentSteps: 0, drag: null,
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
  cfg.nav = $('nav').checked;
  return cfg;
}

function writeControls(cfg) {
  $('scene').value = cfg.scene;
  for (const p of NUMBER_PARAMS) if (cfg[p] !== undefined) $(p).value = cfg[p];
  $('trails').checked = !!cfg.trails;
  $('nav').checked = !!cfg.nav;
  $('simd').value = simdChoice;
}

function cfgFromUrl() {
  const cfg = { scene: params.get('scene') ?? 'circle', seed: 1, spf: 1 };
  if (!params.has('scene')) cfg.agents = 100;
  for (const p of NUMBER_PARAMS) {
    if (params.has(p)) cfg[p] = Number(params.get(p));
  }
  cfg.trails = params.get('trails') === '1';
  // navigation: on by default in the rooms scene only (the built-in scenes' golden runs are
  // without it)
  cfg.nav = params.has('nav') ? params.get('nav') === '1' : cfg.scene === 'rooms';
  return cfg;
}

function urlFor(cfg) {
  const q = new URLSearchParams();
  q.set('scene', cfg.scene);
  for (const p of NUMBER_PARAMS) if (cfg[p] !== undefined) q.set(p, String(cfg[p]));
  if (cfg.trails) q.set('trails', '1');
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
  app.agentSteps = 0;
  app.stepMs = 0;
  app.rate = 0;
  app.rateWindow = { t: performance.now(), ms: 0, agentSteps: 0 };
  app.rooms = cfg.scene === 'rooms';
  app.goals = ROOMS_GOALS.map((p) => [...p]);
  app.goalMoves = 0; // exits moved so far (each a new goal set: moveRoomsExit)
  app.selected = app.rooms ? scene.sim.agentAt(0) : null;
  $('hint').textContent = app.rooms ? HINTS.rooms : HINTS.plain;
  const g = app.golden.get(cfg.scene);
  app.goldenRun = g && (cfg.seed ?? 1) === 1 && Object.keys(agent).length === 0 && !cfg.nav &&
    cfg.speed === undefined && scene.sim.agentCount === g.agents ? g : null;
  app.goldenMark = null;
  fitView();
  clearTrails();
  const url = urlFor(cfg);
  history.replaceState(null, '', url);
  $('link').href = url;
  draw();
  updateStats();
}

// The world box of the scene: starts, goals and walls, with a margin.
function fitView() {
  const s = app.scene;
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const take = (x, y) => { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); };
  const n = s.sim.agentCount;
  const pos = s.sim.positions();
  for (let i = 0; i < n; ++i) {
    take(pos[2 * i], pos[2 * i + 1]);
    const g = s.goal(i);
    if (g.kind === 0) take(g.target[0], g.target[1]);
  }
  for (const seg of s.sim.segments()) {
    // walls reach far; keep the view on the agents unless there are none (the rooms: the
    // floor)
    if (n === 0 || app.rooms) { take(...seg.a); take(...seg.b); }
  }
  if (!Number.isFinite(x0)) { x0 = y0 = -20; x1 = y1 = 20; }
  const m = Math.max(x1 - x0, y1 - y0) * 0.06 + 3;
  app.world = { x0: x0 - m, y0: y0 - m, x1: x1 + m, y1: y1 + m };
  resize();
}

function resize() {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(canvas.clientWidth * dpr));
  const h = Math.max(1, Math.round(canvas.clientHeight * dpr));
  for (const c of [canvas, trailCanvas]) {
    if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
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

function clearTrails() { tctx.clearRect(0, 0, trailCanvas.width, trailCanvas.height); }

function drawTrails() {
  const pos = app.scene.sim.positions();
  const n = pos.length / 2;
  tctx.fillStyle = 'rgba(70, 110, 190, 0.25)';
  const v = app.view;
  const d = Math.max(1, v.dpr);
  for (let i = 0; i < n; ++i) {
    const [sx, sy] = toScreen(pos[2 * i], pos[2 * i + 1]);
    tctx.fillRect(sx - d / 2, sy - d / 2, d, d);
  }
}

function draw() {
  if (!app.scene || !app.view) return;
  const sim = app.scene.sim;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#fbfbfc';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.globalCompositeOperation = 'source-over';
  if (app.cfg.trails) ctx.drawImage(trailCanvas, 0, 0);
  // walls
  ctx.strokeStyle = '#30343b';
  ctx.lineWidth = Math.max(2, 0.3 * app.view.scale);
  ctx.lineCap = 'round';
  ctx.beginPath();
  for (const seg of sim.segments()) {
    ctx.moveTo(...toScreen(...seg.a));
    ctx.lineTo(...toScreen(...seg.b));
  }
  ctx.stroke();
  // agents: one path; colour by heading of the velocity in four groups would cost four
  // passes, so one colour, and the agents added by clicks in another
  const pos = sim.positions();
  const n = pos.length / 2;
  const s = app.view.scale;
  const radius = n ? sim.getAgent(sim.agentAt(0)).radius : 1;
  const rs = Math.max(1.2, radius * s);
  const group = app.rooms ? groupsOf(app.scene) : null;
  for (let g = 0; g < (group ? GROUP_COLOURS.length : 1); ++g) {
    ctx.fillStyle = GROUP_COLOURS[g];
    ctx.beginPath();
    for (let i = 0; i < n; ++i) {
      if (group && group[i] !== g) continue;
      const [sx, sy] = toScreen(pos[2 * i], pos[2 * i + 1]);
      if (rs < 2.5) {
        ctx.rect(sx - rs, sy - rs, 2 * rs, 2 * rs);
      } else {
        ctx.moveTo(sx + rs, sy);
        ctx.arc(sx, sy, rs, 0, 2 * Math.PI);
      }
    }
    ctx.fill();
  }
  if (app.scene.navigation || app.rooms) drawNavigation(pos, rs);
  // agents added by clicks, and their goals
  ctx.fillStyle = '#e07a1f';
  ctx.strokeStyle = '#e07a1f';
  ctx.lineWidth = 1.5 * app.view.dpr;
  for (const a of app.added) {
    const i = sim.agentIndex(a.id);
    if (i < 0) continue;
    const [sx, sy] = toScreen(pos[2 * i], pos[2 * i + 1]);
    ctx.beginPath();
    ctx.arc(sx, sy, Math.max(2, a.radius * s), 0, 2 * Math.PI);
    ctx.fill();
    const [gx, gy] = toScreen(...a.goal);
    const k = 5 * app.view.dpr;
    ctx.beginPath();
    ctx.moveTo(gx - k, gy - k); ctx.lineTo(gx + k, gy + k);
    ctx.moveTo(gx - k, gy + k); ctx.lineTo(gx + k, gy - k);
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
}

// The group (goal set index) of every agent of the rooms scene, index order.
function groupsOf(scene) {
  const n = scene.sim.agentCount;
  const out = new Int32Array(n);
  for (let i = 0; i < n; ++i) out[i] = roomsGroup(scene, i);
  return out;
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

// Steps the scene count times (throughput measured over the steps only).
function stepScene(count) {
  if (!app.scene) return;
  const n = app.scene.sim.agentCount;
  const t0 = performance.now();
  try {
    for (let k = 0; k < count; ++k) {
      app.scene.step();
      checkGolden();
      if (app.cfg.trails) drawTrails();
    }
  } catch (e) {
    showError(e);
    setPlaying(false);
  }
  const ms = performance.now() - t0;
  app.stepMs += ms;
  app.agentSteps += n * count;
  app.rateWindow.ms += ms;
  app.rateWindow.agentSteps += n * count;
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
}

function frame() {
  if (app.playing) {
    const spf = Math.max(1, Math.min(100, Math.floor(app.cfg.spf ?? 1)));
    stepScene(spf);
  }
  draw();
  updateStats();
  requestAnimationFrame(frame);
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
      app.added.push({ id, goal, radius: base.radius });
    }
    app.edited = true;
    app.goldenMark = null;
    showError(null);
  } catch (e) {
    showError(e);
  }
  draw();
  updateStats();
});

// --- controls -------------------------------------------------------------------------------
$('play').addEventListener('click', () => setPlaying(!app.playing));
$('stepBtn').addEventListener('click', () => { setPlaying(false); stepScene(1); });
$('reset').addEventListener('click', () => build());
$('scene').addEventListener('change', () => {
  $('nav').checked = $('scene').value === 'rooms'; // each scene's default
  build();
});
for (const id of ['agents', 'seed', 'radius', 'maxSpeed', 'speed', 'tau', 'tauObst',
  'neighborDist', 'maxNeighbors']) {
  $(id).addEventListener('change', () => build());
}
$('spf').addEventListener('change', () => { app.cfg = readControls(); history.replaceState(null, '', urlFor(app.cfg)); });
$('nav').addEventListener('change', () => {
  // live: the agents plan (or stop planning) at the next step
  app.cfg = readControls();
  try {
    app.scene.setNavigation(app.cfg.nav);
  } catch (e) {
    showError(e);
  }
  app.edited = true;
  app.goldenMark = null;
  history.replaceState(null, '', urlFor(app.cfg));
  $('link').href = urlFor(app.cfg);
  draw();
  updateStats();
});
$('trails').addEventListener('change', () => {
  app.cfg = readControls();
  clearTrails();
  history.replaceState(null, '', urlFor(app.cfg));
});
$('simd').addEventListener('change', () => {
  const q = new URLSearchParams(location.search);
  q.set('simd', $('simd').value);
  location.search = q.toString();
});
window.addEventListener('resize', () => { resize(); draw(); });

async function main() {
  const cfg = cfgFromUrl();
  writeControls(cfg);
  const simd = simdChoice === 'auto' ? 'auto' : simdChoice === '1';
  if (simd === true && !simdSupported()) showError('this browser has no WebAssembly SIMD128');
  [app.orca] = await Promise.all([loadOrca({ simd }), loadGolden()]);
  build();
  const target = Number(params.get('steps') ?? 0);
  if (target > 0) await app.runTo(target);
  setPlaying(params.get('play') === '1');
  app.ready = true;
  requestAnimationFrame(frame);
}
main().catch((e) => { showError(e); console.error(e); });
