// SPDX-License-Identifier: MIT
// The demo page's simulation side (docs/web.md, "The page"): the scene, the edits made with
// the mouse, the golden-hash check and the panel's figures. web/page-worker.mjs runs it in a
// module Worker; web/app.js talks to it only by messages (serve), so that the worker steps
// frame k+1 while the page draws frame k. Without a Worker the page serves it on its own
// thread through a MessageChannel: the same messages, one after the other.
//
// Messages (page -> here): { id, type, ... }; every one is answered with { id, ... } (or
// { id, error: { message, status } }), in the order received:
//   init { simd }                  loads orca.mjs ('auto', true or false) -> { simd }
//   build { cfg, golden }          a new scene (the page's settings; the golden line of the
//                                  scene or null) -> { gen, agents, rooms, world, golden }
//   frame { steps | until, trail, stats, playing, buffer }
//                                  steps the scene (steps times, or until the step count is
//                                  `until`) and returns what the page draws (frameReply)
//   addAgent { p, goal }, addSegment { a, b }, click { p, pick }, setNavigation { on }
//                                  the edits -> {}
//   state                          the figures the tests read -> { step, hash, ... }
//   call { target, method, args }  a Scene ('scene') or Sim ('sim') method or property, for
//                                  the tests -> { value }
import { loadOrca } from './orca.mjs';
import { roomsScene, roomsGroup, moveRoomsExit, ROOMS_GOALS } from './scenes.mjs';

/** Agents are coloured by colour bucket: 0 .. HUES-1 the direction of the goal (the rooms
 * scene: 0 .. GROUPS-1, its groups), then one for agents without a point goal, then one for
 * agents added by a click. */
export const HUES = 12;
export const GROUPS = 2;
/** Steps a trail lasts: a frame of more steps sends the positions of its last TRAIL. */
export const TRAIL = 48;

const TAU = 2 * Math.PI;
const AGENT_FIELDS = { radius: 'radius', maxSpeed: 'maxSpeed', tau: 'timeHorizon',
  tauObst: 'obstacleTimeHorizon', neighborDist: 'neighborDist', maxNeighbors: 'maxNeighbors' };
// times on one clock for the page and the worker (performance.now() of each counts from its
// own origin)
const clock = () => performance.timeOrigin + performance.now();

export class PageSim {
  constructor() {
    this.orca = null;
    this.scene = null;
    this.gen = 0;
  }

  /** Handles one message; returns { reply, transfer }. */
  async handle(m) {
    const fn = this[`on_${m.type}`];
    if (typeof fn !== 'function') throw new Error(`page-sim: unknown message ${m.type}`);
    if (m.type !== 'init' && !this.orca) throw new Error('page-sim: not loaded (init first)');
    if (m.type !== 'init' && m.type !== 'build' && !this.scene) throw new Error('page-sim: no scene (build first)');
    return fn.call(this, m);
  }

  async on_init({ simd }) {
    this.orca ??= await loadOrca({ simd });
    return { reply: { simd: this.orca.simd, version: this.orca.version } };
  }

  on_build({ cfg, golden }) {
    const agent = {};
    for (const [p, field] of Object.entries(AGENT_FIELDS)) {
      if (cfg[p] !== undefined) agent[field] = cfg[p];
    }
    let scene;
    if (cfg.scene === 'rooms') {
      scene = roomsScene(this.orca, { perGroup: cfg.agents ?? 20, seed: cfg.seed ?? 1,
        navigation: cfg.nav, agent, ...(cfg.speed !== undefined ? { speed: cfg.speed } : {}) });
    } else {
      scene = this.orca.createScene(cfg.scene, {
        agents: cfg.agents ?? 0, seed: cfg.seed ?? 1, agent, speed: cfg.speed,
      });
      try {
        if (cfg.nav) scene.setNavigation(true);
      } catch (e) {
        scene.destroy();
        throw e;
      }
    }
    // a refused scene leaves the running one as it was
    this.scene?.destroy();
    this.scene = scene;
    this.gen += 1;
    this.rooms = cfg.scene === 'rooms';
    this.edited = false;
    this.added = []; // { id, goal } of the agents added by clicks
    this.colours = null;
    this.coloursSent = -1; // the colours' version last sent (goal dots)
    this.coloursVersion = 0;
    this.wallsVersion = 0;
    this.wallsSent = -1;
    this.agentSteps = 0;
    this.rate = 0;
    this.rateWindow = { t: performance.now(), ms: 0, agentSteps: 0 };
    this.goals = ROOMS_GOALS.map((p) => [...p]); // the rooms' exits now
    this.goalMoves = 0;
    this.selected = this.rooms ? scene.sim.agentAt(0) : null;
    const n = scene.sim.agentCount;
    this.goldenRun = golden && (cfg.seed ?? 1) === 1 && Object.keys(agent).length === 0 && !cfg.nav &&
      cfg.speed === undefined && n === golden.agents ? golden : null;
    this.goldenMark = null;
    return { reply: { gen: this.gen, agents: n, rooms: this.rooms, world: this.worldBox(),
      golden: this.goldenRun } };
  }

  // The world box of the scene: starts, goals and walls, with a margin.
  worldBox() {
    const s = this.scene;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    const take = (x, y) => { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); };
    const n = s.sim.agentCount;
    const pos = s.sim.positions();
    const c = this.colourAgents();
    for (let i = 0; i < n; ++i) {
      take(pos[2 * i], pos[2 * i + 1]);
      if (c.hasGoal[i]) take(c.goals[2 * i], c.goals[2 * i + 1]);
    }
    for (const seg of s.sim.segments()) {
      // walls reach far; keep the view on the agents unless there are none (the rooms: the
      // floor)
      if (n === 0 || this.rooms) { take(...seg.a); take(...seg.b); }
    }
    if (!Number.isFinite(x0)) { x0 = y0 = -20; x1 = y1 = 20; }
    const m = Math.max(x1 - x0, y1 - y0) * 0.04 + 2;
    return { x0: x0 - m, y0: y0 - m, x1: x1 + m, y1: y1 + m };
  }

  // Every agent's colour bucket and goal point, in index order; computed again when the agent
  // count changes (exits) or an agent is added. atan2 here is drawing only: the simulation
  // uses no angles.
  colourAgents() {
    const sc = this.scene;
    const n = sc.sim.agentCount;
    if (this.colours && this.colours.n === n) return this.colours;
    const bucket = new Uint8Array(n);
    const goals = new Float64Array(2 * n);
    const hasGoal = new Uint8Array(n);
    const added = new Set(this.added.map((a) => sc.sim.agentIndex(a.id)));
    const none = this.rooms ? GROUPS : HUES;
    for (let i = 0; i < n; ++i) {
      if (this.rooms) {
        bucket[i] = roomsGroup(sc, i); // the exits are drawn as crosses
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
    this.coloursVersion += 1;
    this.colours = { n, bucket, goals, hasGoal };
    return this.colours;
  }

  checkGolden() {
    const g = this.goldenRun;
    if (!g || this.edited) return;
    if (this.scene.sim.stepCount === g.steps) {
      const h = this.scene.sim.hash();
      this.goldenMark = { step: g.steps, hash: h, ok: h === g.hash, expected: g.hash };
    }
  }

  // The selected agent's index, or -1 (none selected, or it left by an exit).
  selectedIndex() {
    if (!this.selected) return -1;
    const i = this.scene.sim.agentIndex(this.selected);
    if (i < 0) this.selected = null;
    return i;
  }

  edit() {
    this.edited = true;
    this.goldenMark = null;
  }

  /**
   * Steps and answers with what the page draws:
   *   { gen, step, done (steps made), stepMs (their time), span: [start, end] of the stepping
   *     (performance.timeOrigin + now), counts: [n of each record], pos (Float64Array: the
   *     records' positions one after the other), bucket (Uint8Array: their colour buckets),
   *     trail (the records are steps for the trails), radius, nav, added, error;
   *     goals { goals, hasGoal } when the goal dots changed, walls when the walls changed,
   *     stats when asked for }
   * The records: the state after each of the last min(trail, steps) steps, the last one the
   * current state (only the current state without trail or steps). pos and bucket share one
   * ArrayBuffer, transferred: m.buffer (the one the page last received, handed back) when big
   * enough, else a new one.
   */
  on_frame(m) {
    const sc = this.scene, sim = sc.sim;
    const count = m.until !== undefined ? Math.max(0, m.until - sim.stepCount) : Math.max(0, m.steps | 0);
    const keep = Math.min(m.trail | 0, count);
    const n0 = sim.agentCount; // steps remove agents (exits), never add them
    const records = Math.max(1, keep);
    const posBytes = 16 * n0 * records;
    const bytes = posBytes + n0 * records;
    const buffer = m.buffer instanceof ArrayBuffer && m.buffer.byteLength >= bytes ? m.buffer : new ArrayBuffer(Math.max(8, bytes));
    const counts = [];
    let pAt = 0, bAt = 0, recordedStep = -1;
    const record = () => {
      const n = sim.agentCount;
      sim.positionsInto(new Float64Array(buffer, 8 * pAt, 2 * n));
      new Uint8Array(buffer, posBytes + bAt, n).set(this.colourAgents().bucket);
      pAt += 2 * n;
      bAt += n;
      counts.push(n);
      recordedStep = sim.stepCount;
    };
    let stepMs = 0, done = 0, error = null;
    const start = clock();
    try {
      for (let k = 0; k < count; ++k) {
        const before = sim.stepCount;
        const t0 = performance.now();
        sc.step();
        this.checkGolden();
        stepMs += performance.now() - t0;
        ++done;
        // a simulation without agents does not count its steps: `until` ends there
        if (m.until !== undefined && sim.stepCount === before) break;
        if (k >= count - keep) record();
      }
    } catch (e) {
      error = { message: String(e.message ?? e), status: e.status ?? null };
    }
    const end = clock();
    // the current state, unless the last step recorded it (then it is in place of a record
    // that a refused step or the end of `until` did not make: the buffer holds it)
    if (counts.length === 0 || recordedStep !== sim.stepCount) record();
    const n = sim.agentCount;
    this.agentSteps += n0 * done;
    const w = this.rateWindow;
    w.ms += stepMs;
    w.agentSteps += n0 * done;
    if (performance.now() - w.t > 500 || !m.playing) {
      if (w.ms > 0) this.rate = w.agentSteps / (w.ms / 1000);
      this.rateWindow = { t: performance.now(), ms: 0, agentSteps: 0 };
    }
    const reply = {
      type: 'frame', gen: this.gen, step: sim.stepCount, done, stepMs, span: [start, end], counts,
      pos: new Float64Array(buffer, 0, pAt), bucket: new Uint8Array(buffer, posBytes, bAt),
      trail: keep > 0 && done > 0, cleared: done > keep, error,
      radius: n ? sim.getAgent(sim.agentAt(0)).radius : 1,
    };
    const c = this.colourAgents();
    if (this.coloursSent !== this.coloursVersion) {
      reply.goals = { goals: c.goals, hasGoal: c.hasGoal };
      this.coloursSent = this.coloursVersion;
    }
    if (this.wallsSent !== this.wallsVersion) {
      reply.walls = sim.segments().map(({ a, b }) => [a, b]);
      this.wallsSent = this.wallsVersion;
    }
    if (sc.navigation || this.rooms) reply.nav = this.navDrawing();
    if (this.added.length) {
      reply.added = this.added.filter((a) => sim.agentIndex(a.id) >= 0).map((a) => a.goal);
    }
    if (m.stats) reply.stats = this.stats();
    return { reply, transfer: [buffer] };
  }

  // Navigation as drawn: each group's exit now (rooms), the selected agent (index, position,
  // radius) with its navigation state and path.
  navDrawing() {
    const sc = this.scene;
    const nav = { exits: this.rooms ? this.goals.map((p) => [...p]) : null, selected: null };
    const i = this.selectedIndex();
    if (i >= 0) {
      const p = sc.sim.positions();
      nav.selected = { i, p: [p[2 * i], p[2 * i + 1]], radius: sc.sim.getAgent(this.selected).radius,
        nav: sc.agentNav(i), path: sc.agentPath(i) };
    }
    return nav;
  }

  stats() {
    const s = this.scene, sim = s.sim;
    const st = {
      step: sim.stepCount, time: sim.stepCount * s.dt, agents: sim.agentCount, walls: sim.segmentCount,
      arrived: s.arrivedCount, navigation: s.navigation, unreachable: s.navUnreachable,
      exited: s.exited, rate: this.rate, maxAgentOverlap: s.maxAgentOverlap,
      maxWallOverlap: s.maxWallOverlap, fallbackTotal: s.fallbackTotal, agentSteps: this.agentSteps,
      hash: s.hash(), goldenMark: this.goldenMark, goldenSteps: this.goldenRun?.steps ?? null,
      edited: this.edited, rooms: this.rooms,
    };
    return st;
  }

  on_addAgent({ p, goal }) {
    const sc = this.scene, sim = sc.sim;
    const base = sim.agentCount ? sim.getAgent(sim.agentAt(0)) : this.orca.defaultAgent();
    const speed = sim.agentCount ? sc.goal(0).speed : this.orca.defaultGoal().speed;
    const def = { ...base, position: p, velocity: [0, 0], preferredVelocity: [0, 0] };
    const id = sc.addAgent(def, { target: goal, speed });
    this.added.push({ id, goal });
    this.colours = null;
    this.edit();
    return { reply: { index: sim.agentIndex(id) } };
  }

  on_addSegment({ a, b }) {
    this.scene.sim.addSegment(a, b);
    this.wallsVersion += 1;
    this.edit();
    return { reply: {} };
  }

  // The rooms scene: a click near an agent selects it; elsewhere it moves the selected
  // agent's group's exit there (pick: the distance in m within which a click hits an agent,
  // besides twice its radius).
  on_click({ p, pick }) {
    const sc = this.scene, sim = sc.sim;
    const pos = sim.positions();
    let best = -1, bd = Infinity;
    for (let i = 0; i < pos.length / 2; ++i) {
      const dd = Math.hypot(pos[2 * i] - p[0], pos[2 * i + 1] - p[1]);
      if (dd < bd) { bd = dd; best = i; }
    }
    const radius = best >= 0 ? sim.getAgent(sim.agentAt(best)).radius : 0;
    if (best >= 0 && bd <= Math.max(2 * radius, pick)) {
      this.selected = sim.agentAt(best);
    } else {
      const i = this.selectedIndex();
      const g = i >= 0 ? roomsGroup(sc, i) : 0;
      this.goals[g] = p;
      this.goalMoves += 1;
      moveRoomsExit(sc, g, `g${g}.${this.goalMoves}`, p);
    }
    this.edit();
    return { reply: {} };
  }

  on_setNavigation({ on }) {
    this.scene.setNavigation(on);
    this.edit();
    return { reply: {} };
  }

  on_state() {
    const sc = this.scene, sim = sc.sim;
    const pos = sim.positions();
    return { reply: {
      step: sim.stepCount, hash: sim.hash(), agents: sim.agentCount, walls: sim.segmentCount,
      simd: this.orca.simd, golden: this.goldenMark, maxWallOverlap: sc.maxWallOverlap,
      maxAgentOverlap: sc.maxAgentOverlap, navigation: sc.navigation, sceneHash: sc.hash(),
      exited: sc.exited, unreachable: sc.navUnreachable,
      selected: this.selected ? this.selectedIndex() : -1,
      goals: this.rooms ? this.goals.map((p) => [...p]) : null,
      added: this.added.map(({ id }) => {
        const i = sim.agentIndex(id);
        return { index: i, position: i >= 0 ? [pos[2 * i], pos[2 * i + 1]] : null,
          goal: i >= 0 ? sc.goal(i).target : null };
      }),
    } };
  }

  on_call({ target, method, args = [] }) {
    const obj = target === 'sim' ? this.scene.sim : target === 'scene' ? this.scene : null;
    if (!obj) throw new Error(`page-sim: call: target must be 'scene' or 'sim', got ${target}`);
    const v = obj[method];
    if (v === undefined) throw new Error(`page-sim: call: no ${target}.${method}`);
    let value = typeof v === 'function' ? v.apply(obj, args) : v;
    // a view of the module's memory (positions(), velocities()): a copy of it, not the memory
    if (ArrayBuffer.isView(value)) value = value.slice();
    if (method === 'addSegment') { this.wallsVersion += 1; this.edit(); }
    return { reply: { value } };
  }
}

/** Serves a PageSim on port (a Worker's self, or a MessagePort): handles the messages one
 * after the other, in the order received, and answers each. */
export function serve(port) {
  const sim = new PageSim();
  let queue = Promise.resolve();
  port.onmessage = ({ data: m }) => {
    queue = queue.then(async () => {
      try {
        const { reply, transfer = [] } = await sim.handle(m);
        port.postMessage({ id: m.id, ...reply }, transfer);
      } catch (e) {
        port.postMessage({ id: m.id, error: { message: String(e?.message ?? e), status: e?.status ?? null } });
      }
    });
  };
  return sim;
}
