// SPDX-License-Identifier: MIT
// orca in JavaScript: an ES module over the WebAssembly build of the C library (docs/web.md).
//
//   import { loadOrca } from './orca.mjs';
//   const orca = await loadOrca();                  // orca-simd.wasm where SIMD128 validates
//   const scene = orca.createScene('circle', { agents: 100, seed: 1 });
//   for (let i = 0; i < 400; ++i) scene.step();
//   scene.sim.hash();                                 // '4be6d7e7a7e24a3a', as natively
//   const file = orca.readScene(text);               // a scene file, as `orca run` reads it
//
// Every failure throws an OrcaError: a refusal of the C library with the library's message
// (orca_sim_last_error), its `status` the enumerator's name ("ORCA_ERR_ARGUMENT") and `code`
// its number; the module's own checks (arguments, destroyed objects) in the same form.
// Handles are strings 'KIND:SLOT:GENERATION:SIM' ('agent:3:1:7'; kinds agent, segment,
// boundary; SIM the identity of the simulation that issued it, Sim.id): values that compare
// with === and serve as Map keys and in JSON. A handle of another simulation throws
// (ORCA_ERR_FOREIGN) and changes nothing; parseHandle() gives the parts.
// Bulk calls refuse a count beyond the library's limits (ORCA_ERR_LIMIT) or a block beyond the
// module's memory (ORCA_ERR_MEMORY) before anything is copied. positions() and velocities()
// are Float64Array views on the module's memory (x0 y0 x1 y1 ...), checked at each call (a
// new view once the block moved or the memory grew; `v === sim.positions()` tells whether a
// kept one is current); positionsInto() and velocitiesInto() copy.
// Sim, Scene and Nav free their module memory with destroy() (or `using`); wrappers collected
// without it are freed by a FinalizationRegistry. Everything else is private.
// The module runs one worker: WebAssembly here has no threads.

/** The library's statuses (orca_status, include/orca/base.h): name -> code. */
export const STATUS = Object.freeze({
  ORCA_OK: 0, ORCA_ERR_ARGUMENT: -1, ORCA_ERR_NULL: -2, ORCA_ERR_MEMORY: -3, ORCA_ERR_STALE: -4,
  ORCA_ERR_FORMAT: -5, ORCA_ERR_LIMIT: -6, ORCA_ERR_IO: -7, ORCA_ERR_FOREIGN: -8,
});

/**
 * What every failure of this module throws: status is the name of the library's status
 * ('ORCA_ERR_ARGUMENT', ... : STATUS), code its number, message the library's message (or
 * the module's, in the library's style, for what it checks itself).
 */
export class OrcaError extends Error {
  constructor(status, message, options) {
    super(message, options);
    this.name = 'OrcaError';
    this.status = status;
    this.code = STATUS[status] ?? null;
  }
}

const DEF_WORDS = 12;
const DEF_FIELDS = [
  'position', 'velocity', 'preferredVelocity', 'radius', 'maxSpeed', 'neighborDist',
  'maxNeighbors', 'timeHorizon', 'obstacleTimeHorizon',
];
export const SCENES = ['circle', 'crossing', 'wallgap', 'corridor', 'random'];
export const GOAL = Object.freeze({ POINT: 0, VELOCITY: 1, NONE: 2, SET: 3 });
/** The library's counts (docs/limits.md): the bulk calls refuse more before copying anything.
 * NAV_GOALS: the points of a goal set and the goals of a path query (ORCA_NAV_GOALS_MAX). */
export const LIMITS = Object.freeze({
  AGENTS: 2 ** 30, SEGMENTS: 2 ** 28, BOUNDARY_EDGES: 2 ** 24, WAYPOINTS: 2 ** 20, NAV_GOALS: 2 ** 16,
});
// A navigation result ('ok', 'no_path', 'start_blocked', 'goal_blocked') from its number.
const NAV_RESULTS = ['ok', 'no_path', 'start_blocked', 'goal_blocked'];
// The exit choices by orca_exit_choice's number.
const EXIT_CHOICES = ['nearest', 'calm', 'quickest'];
// orca_nav_corner: 56 bytes (web/orca_wasm.c checks the layout).
const CORNER_BYTES = 56;
// ORCA_MAX_NEIGHBORS_LIMIT (include/orca/sim.h).
const MAX_NEIGHBORS = 1024;
// The private state of a Sim and of a Scene, for the module's own functions (set by the
// classes' static blocks).
let simStateOf;
let sceneStateOf;
// The most bytes one block of module memory can have (wasm32: a 32-bit address space).
const MAX_BLOCK = 2 ** 32 - 1;

const HANDLE = /^(agent|segment|boundary):(\d{1,10}):(\d{1,10}):(\d{1,10})$/;
/** The parts of a handle: { kind, slot, generation, sim }, or null for what is not one. */
export function parseHandle(h) {
  const m = typeof h === 'string' ? HANDLE.exec(h) : null;
  if (!m) return null;
  const [slot, generation, sim] = [+m[2], +m[3], +m[4]];
  if (slot > 0xFFFFFFFF || generation > 0xFFFFFFFF || sim > 0xFFFFFFFF) return null;
  return { kind: m[1], slot, generation, sim };
}
// The three words of a handle of kind (what names it in a message), or a thrown
// ORCA_ERR_ARGUMENT.
function handleWords(h, kind, what = 'handle') {
  const p = parseHandle(h);
  if (!p || p.kind !== kind) {
    const shown = typeof h === 'string' ? `'${h}'` : (h === undefined ? 'undefined' : JSON.stringify(h));
    throw argError(`${what} is not ${kind === 'agent' ? 'an' : 'a'} ${kind} handle: ${shown}`);
  }
  return [p.slot, p.generation, p.sim];
}
function memoryError(message) {
  return new OrcaError('ORCA_ERR_MEMORY', message);
}
function limitError(call, name, n, limit) {
  return new OrcaError('ORCA_ERR_LIMIT', `${call}: ${name} has ${n} entries, beyond ${limit}; nothing was changed`);
}
// The avoidance settings of docs/extensions.md (issue 16); addAgent takes them with the fields.
const AVOIDANCE_FIELDS = ['priority', 'layers', 'mask', 'locked'];
const DENSITY_FIELDS = ['radius', 'gamma', 'maxDensity'];
// The pedestrian model's parameters (docs/pedestrians.md).
const PEDESTRIAN_FIELDS = ['timeGap', 'buffer', 'counterReach', 'maxPlanes'];
// The preset's step when a custom scene gives none (ORCA_PEDESTRIAN_DT).
const PEDESTRIAN_DT = 0.05;
const DIAGNOSTIC_FIELDS = [
  'fallback', 'failedConstraint', 'neighborCount', 'candidates', 'neighborsCut', 'blocked', 'locked',
  'headwayPlanes', 'counterMode',
];
const DIAG_WORDS = DIAGNOSTIC_FIELDS.length; // orca_agent_diagnostics: this many i32

// The smallest module that uses a SIMD128 instruction (i32.const 0; i8x16.splat): valid
// exactly where the engine has fixed-width SIMD.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, // "\0asm", version 1
  1, 5, 1, 96, 0, 1, 123, // type section: () -> v128
  3, 2, 1, 0, // function section: one function of type 0
  10, 8, 1, 6, 0, 65, 0, 253, 15, 11, // code: i32.const 0, i8x16.splat, end
]);

/** Whether this engine runs WebAssembly SIMD128. */
export function simdSupported() {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

// The few WASI functions wasi-libc links in (writes to stdout/stderr only on a library bug):
// fd_write goes to the console, the rest answer ENOSYS (52). No file system, no network.
function wasiImports(getMemory) {
  const text = new TextDecoder();
  return new Proxy({}, {
    get(_, name) {
      if (name === 'fd_write') {
        return (fd, iovs, count, written) => {
          const mem = getMemory();
          const view = new DataView(mem.buffer);
          let total = 0;
          let s = '';
          for (let i = 0; i < count; ++i) {
            const ptr = view.getUint32(iovs + 8 * i, true);
            const len = view.getUint32(iovs + 8 * i + 4, true);
            s += text.decode(new Uint8Array(mem.buffer, ptr, len));
            total += len;
          }
          view.setUint32(written, total, true);
          if (s.trim()) (fd === 2 ? console.error : console.log)(s.replace(/\n$/, ''));
          return 0;
        };
      }
      if (name === 'proc_exit') {
        return (code) => { throw new OrcaError('ORCA_ERR_IO', `orca: the module exited with status ${code}`); };
      }
      return () => 52;
    },
  });
}

async function toBytesOrResponse(src) {
  if (src instanceof ArrayBuffer || ArrayBuffer.isView(src)) return src;
  if (typeof src === 'string' || src instanceof URL) {
    const url = new URL(src, import.meta.url);
    if (url.protocol === 'file:') { // Node: read the file (fetch has no file: URLs there)
      // A computed specifier: bundlers leave it alone, so no browser bundle pulls in node:fs.
      const fs = 'node:fs/promises';
      const { readFile } = await import(/* @vite-ignore */ fs);
      return readFile(url);
    }
    return fetch(url);
  }
  return src; // a Response or a promise of one
}

/**
 * Loads the module. options:
 *   simd: 'auto' (default: SIMD128 where the engine validates it), true or false
 *   wasm: the module to use instead (URL, Response, ArrayBuffer or typed array)
 *   baseUrl: where orca.wasm and orca-simd.wasm are (default: ./wasm/ next to orca.mjs)
 *   wrapExports: a function given the module's exports that returns the object to call
 *     instead (for tests: e.g. an ow_malloc that fails)
 * A module that cannot be fetched or read throws OrcaError ORCA_ERR_IO; bytes that are not a
 * valid module ORCA_ERR_FORMAT.
 */
export async function loadOrca(options = {}) {
  const wantSimd = options.simd === undefined || options.simd === 'auto'
    ? simdSupported() : !!options.simd;
  let src = options.wasm;
  if (src === undefined) {
    // Literal `new URL('./…', import.meta.url)` expressions: bundlers (Vite, webpack, Rollup)
    // see them and ship the files with the app.
    if (options.baseUrl !== undefined) {
      src = new URL(wantSimd ? 'orca-simd.wasm' : 'orca.wasm', options.baseUrl);
    } else {
      src = wantSimd ? new URL('./wasm/orca-simd.wasm', import.meta.url)
        : new URL('./wasm/orca.wasm', import.meta.url);
    }
  }
  let memory = null;
  const imports = { wasi_snapshot_preview1: wasiImports(() => memory) };
  let bytes;
  try {
    bytes = await toBytesOrResponse(src);
    if (typeof Response !== 'undefined' && bytes instanceof Response) {
      if (!bytes.ok) throw new OrcaError('ORCA_ERR_IO', `orca: could not load ${bytes.url}: HTTP ${bytes.status}`);
      bytes = await bytes.arrayBuffer();
    }
  } catch (e) {
    if (e instanceof OrcaError) throw e;
    throw new OrcaError('ORCA_ERR_IO', `orca: could not load ${src}: ${e && e.message ? e.message : e}`, { cause: e });
  }
  let instance;
  try {
    ({ instance } = await WebAssembly.instantiate(bytes, imports));
  } catch (e) {
    throw new OrcaError('ORCA_ERR_FORMAT', `orca: not a usable orca module: ${e && e.message ? e.message : e}`, { cause: e });
  }
  memory = instance.exports.memory;
  instance.exports._initialize();
  const x = options.wrapExports ? options.wrapExports(instance.exports) : instance.exports;
  return new Orca(INTERNAL, new Core(x));
}

// Passed by the module to the constructors of Orca, Sim, Scene and Nav: objects come from
// loadOrca() and the factories, never from `new` in user code.
const INTERNAL = Symbol('orca internal');
function internalOnly(token, cls) {
  if (token !== INTERNAL) {
    throw new OrcaError('ORCA_ERR_ARGUMENT', `${cls} objects come from loadOrca() and its factories, not from new ${cls}()`);
  }
}

// The loaded module's internals, shared by the objects made from it and never exposed: the
// exports, the memory, the scratch block and the memory helpers.
class Core {
  constructor(x) {
    this.x = x;
    this.memory = x.memory;
    this.text = new TextDecoder();
    this.enc = new TextEncoder();
    // scratch: 16 doubles, then handles at +128; reused by every call (one thread)
    this.scratch = this.alloc(256, 'the scratch block');
  }
  /** A block of module memory of `bytes` bytes (released with ow_free) for `what`: a size the
   * module cannot address, or an allocation that fails, throws ORCA_ERR_MEMORY (nothing is
   * written through a null pointer). The module's only call of ow_malloc. */
  alloc(bytes, what) {
    this.fits(bytes, what);
    const p = this.x.ow_malloc(bytes);
    if (!p) throw memoryError(`out of memory: ${what} needs ${bytes} bytes of module memory`);
    return p;
  }
  // Throws ORCA_ERR_MEMORY when a block of `bytes` bytes cannot exist in the module (checked
  // before a bulk call reads its input).
  fits(bytes, what) {
    if (!(Number.isInteger(bytes) && bytes >= 0 && bytes <= MAX_BLOCK)) {
      throw memoryError(`out of memory: ${what} needs ${bytes} bytes of module memory, more ` +
        'than the 4 GiB a WebAssembly module addresses; nothing was changed');
    }
  }
  f64(ptr, n) { return new Float64Array(this.memory.buffer, ptr, n); }
  u32(ptr, n) { return new Uint32Array(this.memory.buffer, ptr, n); }
  str(ptr) {
    if (!ptr) return '';
    const bytes = new Uint8Array(this.memory.buffer, ptr);
    let end = 0;
    while (bytes[end] !== 0) ++end;
    return this.text.decode(bytes.subarray(0, end));
  }
  // A NUL-terminated copy of s in module memory (release with ow_free).
  cstr(s) {
    const b = this.enc.encode(String(s));
    const p = this.alloc(b.length + 1, 'a string');
    const m = new Uint8Array(this.memory.buffer, p, b.length + 1);
    m.set(b);
    m[b.length] = 0;
    return p;
  }
  // Throws the library's status as an OrcaError with message (or the status's name).
  fail(status, message) {
    const name = this.str(this.x.ow_status_name(status));
    throw new OrcaError(name, message || name);
  }
}

/** The loaded module: factory of simulations and scenes. */
export class Orca {
  #c;
  constructor(token, core) {
    internalOnly(token, 'Orca');
    this.#c = core;
    /** Whether this is the SIMD128 module. */
    this.simd = core.x.ow_simd128() === 1;
    /** orca_version(). */
    this.version = core.str(core.x.ow_version());
    Object.freeze(this);
  }

  /** The default agent definition (orca_agent_def_default; docs/scenarios.md, "Defaults"). */
  defaultAgent() {
    this.#c.x.ow_agent_def_default(this.#c.scratch);
    return wordsToDef(this.#c.f64(this.#c.scratch, DEF_WORDS));
  }
  /** The default goal (orca_goal_default): { kind: GOAL.NONE, target: [0, 0], speed: 1 }; speed
   * is a point goal's preferred speed when none is given. */
  defaultGoal() { return goalDefault(this.#c); }
  /** The pedestrian preset's agent (orca_pedestrian_agent_def; docs/pedestrians.md): the
   * defaults a scene's addAgent uses while the pedestrian model is on. */
  pedestrianAgent() {
    this.#c.x.ow_pedestrian_agent_def(this.#c.scratch);
    return wordsToDef(this.#c.f64(this.#c.scratch, DEF_WORDS));
  }
  /** The pedestrian model's defaults (orca_pedestrian_default): { timeGap: 0.5, buffer: 0.02,
   * counterReach: 2, maxPlanes: 4 }. */
  pedestrianDefaults() { return { timeGap: 0.5, buffer: 0.02, counterReach: 2, maxPlanes: 4 }; }
  /** The preset's free walking speed (m/s) of the agent with key `key` (its creation ordinal)
   * in a scene of seed `seed` (orca_pedestrian_free_speed): Weidmann's N(1.34, 0.26) drawn
   * without libm, clamped to [0.7, 2]. Both whole numbers (or BigInt) in [0, 2^64). */
  pedestrianFreeSpeed(seed, key) {
    return this.#c.x.ow_pedestrian_free_speed(seed64(seed), seed64(key, 'key'));
  }

  /** A path query object over the walls of sim (a Sim, or a scene's sim): see Nav. */
  createNav(sim) {
    return makeNav(this.#c, sim);
  }

  /** A new empty simulation (one worker). */
  createSim() {
    const st = this.#c.x.ow_sim_create(this.#c.scratch);
    if (st !== 0) this.#c.fail(st, this.#c.str(this.#c.x.ow_sim_last_error(0)));
    const s = simState(this.#c, this.#c.u32(this.#c.scratch, 1)[0], true);
    return track(new Sim(INTERNAL, s, null), s);
  }

  /**
   * A scenario: a built-in scene by name ('circle', 'crossing', 'wallgap', 'corridor',
   * 'random'; options.agents, 0 or absent = the scene's default count; options.seed) or an
   * empty one ('custom', with options.dt and options.seed). The preferred-velocity rule of
   * docs/scenarios.md steers its agents. options.agent (fields of an agent definition) and
   * options.speed (preferred speed of the point goals) change every agent of a built-in
   * scene. A seed is a whole number (or BigInt) in [0, 2^64). options.pedestrian: true turns
   * the pedestrian preset on (scene.setPedestrian({})); a custom scene's dt is then 0.05 s
   * unless given.
   */
  createScene(name, options = {}) {
    if (options === null || typeof options !== 'object') {
      throw argError(`createScene: options must be an object, got ${options}`);
    }
    const scene = this.#createScene(name, options);
    if (options.pedestrian) {
      try {
        scene.setPedestrian({});
      } catch (e) {
        scene.destroy();
        throw e;
      }
    }
    return scene;
  }
  #createScene(name, options) {
    const seed = seed64(options.seed);
    let st;
    if (name === 'custom') {
      const dt = options.dt ?? (options.pedestrian ? PEDESTRIAN_DT : 0.25);
      st = this.#c.x.ow_scenario_create(dt, seed, this.#c.scratch);
    } else {
      const p = this.#c.cstr(name);
      const kind = this.#c.x.ow_scene_from_name(p);
      this.#c.x.ow_free(p);
      if (kind < 0) {
        throw new OrcaError('ORCA_ERR_ARGUMENT', `unknown scene '${name}' (one of ${SCENES.join(', ')}, custom)`);
      }
      const agents = options.agents ?? 0;
      if (!Number.isInteger(agents)) {
        throw new OrcaError('ORCA_ERR_ARGUMENT', `agent count must be a whole number, got ${agents}`);
      }
      st = this.#c.x.ow_scenario_create_builtin(kind, agents, seed, this.#c.scratch);
    }
    if (st !== 0) this.#c.fail(st, this.#c.str(this.#c.x.ow_scenario_last_error(0)));
    const scene = makeScene(this.#c, this.#c.u32(this.#c.scratch, 1)[0]);
    const agent = options.agent ?? {};
    if (name === 'custom' || (Object.keys(agent).length === 0 && options.speed === undefined)) {
      return scene;
    }
    // Overrides (options.agent: fields of an agent definition for every agent;
    // options.speed: every point goal's preferred speed): the scene is rebuilt as a custom
    // scenario with the same dt, seed, agents in the same order (their keys) and walls.
    try {
      const custom = this.#createScene('custom', { dt: scene.dt, seed: scene.seed });
      try {
        const p = this.#c.cstr(name);
        this.#c.x.ow_scenario_set_name(sceneStateOf(custom).ptr, p);
        this.#c.x.ow_free(p);
        const n = scene.sim.agentCount;
        for (let i = 0; i < n; ++i) {
          const def = { ...scene.sim.getAgent(scene.sim.agentAt(i)), ...agent };
          const { goalSet, ...g } = scene.goal(i); // built-in scenes have no goal sets
          if (options.speed !== undefined && g.kind === GOAL.POINT) g.speed = options.speed;
          custom.addAgent(def, g);
        }
        for (const seg of scene.sim.segments()) custom.sim.addSegment(seg.a, seg.b);
      } catch (e) {
        custom.destroy();
        throw e;
      }
      return custom;
    } finally {
      scene.destroy();
    }
  }

  /**
   * A scenario from the text of a scene file (docs/scene-format.md), read and built by the
   * library's reader, which `orca run FILE` uses: the same scene, to the same bits. text: a
   * string, or the file's bytes (Uint8Array). options.name is what messages call the text
   * (default '<scene>'); options.dt and options.seed replace the file's, as `orca run --dt` and
   * `--seed` do; options.pedestrian: true builds it with the pedestrian preset, as `orca run
   * --pedestrian` does (docs/pedestrians.md). A bad line throws ORCA_ERR_FORMAT (ORCA_ERR_LIMIT beyond the format's limits)
   * with the message `orca run` prints ("<scene>:12: radius must be > 0, got '-1'"); what only
   * the simulation can check (an agent outside the walkable area) throws its status, the
   * message naming the line.
   */
  readScene(text, options = {}) {
    if (options === null || typeof options !== 'object') {
      throw argError(`readScene: options must be an object, got ${options}`);
    }
    const c = this.#c;
    let bytes;
    if (typeof text === 'string') bytes = c.enc.encode(text);
    else if (text instanceof Uint8Array) bytes = text;
    else throw argError('readScene: expected the text of a scene file (a string or a Uint8Array)');
    const seed = options.seed === undefined ? null : seed64(options.seed);
    const buf = c.alloc(bytes.length + 1, `a scene file of ${bytes.length} bytes`);
    let name = 0;
    let st;
    try {
      name = c.cstr(options.name ?? '<scene>');
      new Uint8Array(c.memory.buffer, buf, bytes.length).set(bytes);
      st = c.x.ow_scene_file_read_text(buf, bytes.length, name, c.scratch);
    } finally {
      c.x.ow_free(buf);
      if (name) c.x.ow_free(name);
    }
    if (st !== 0) c.fail(st, c.str(c.x.ow_scene_file_last_error(0)));
    const file = c.u32(c.scratch, 1)[0];
    try {
      st = c.x.ow_scene_file_build(file, options.dt === undefined ? 0 : 1, Number(options.dt ?? 0),
        seed === null ? 0 : 1, seed ?? 0n, options.pedestrian ? 1 : 0, c.scratch);
      if (st !== 0) c.fail(st, c.str(c.x.ow_scene_file_last_error(file)));
    } finally {
      c.x.ow_scene_file_destroy(file);
    }
    return makeScene(c, c.u32(c.scratch, 1)[0]);
  }
}

// The handle of kind from three words of w at k.
function wordsHandle(kind, w, k) { return `${kind}:${w[k]}:${w[k + 1]}:${w[k + 2]}`; }

// orca_goal_default as { kind, target, speed }.
function goalDefault(c) {
  c.x.ow_goal_default(c.scratch);
  const w = c.f64(c.scratch, 4);
  return { kind: w[0], target: [w[1], w[2]], speed: w[3] };
}

function wordsToDef(w) {
  return {
    position: [w[0], w[1]], velocity: [w[2], w[3]], preferredVelocity: [w[4], w[5]],
    radius: w[6], maxSpeed: w[7], neighborDist: w[8], maxNeighbors: w[9],
    timeHorizon: w[10], obstacleTimeHorizon: w[11],
  };
}

function argError(message) {
  return new OrcaError('ORCA_ERR_ARGUMENT', message);
}
// An exit's arrive distance: 0 or [2^-30, 2^23] m, orca_scenario_set_goal_set_exit's range and
// message (checked before a goal set is added, so that a refusal adds nothing).
function checkArrive(d) {
  if (!(d === 0 || (d >= 2 ** -30 && d <= 2 ** 23))) {
    throw argError(`arrive_distance must be 0 (the agent's radius) or in [2^-30, 2^23] m, got ${d}`);
  }
}
// n orca_nav_corner structs at ptr as plain objects.
function readCorners(orca, ptr, n) {
  const f = orca.f64(ptr, 7 * n);
  const side = new Int32Array(orca.memory.buffer, ptr, 14 * n);
  const out = [];
  for (let k = 0; k < n; ++k) {
    const o = 7 * k;
    out.push({ vertex: [f[o], f[o + 1]], side: side[2 * o + 4], enter: [f[o + 3], f[o + 4]], leave: [f[o + 5], f[o + 6]] });
  }
  return out;
}
// A 32-bit layer mask: a whole number in [0, 0xFFFFFFFF] (what the C type can carry).
function mask32(v, what) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xFFFFFFFF) {
    throw argError(`${what} must be a whole number in [0, 0xFFFFFFFF], got ${v}`);
  }
  return v;
}
// locked: true/false, or a whole number in int range (the library refuses all but 0 and 1).
function lockedInt(v) {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) {
    throw argError(`locked must be true, false, 0 or 1, got ${v}`);
  }
  return v;
}
// def without its avoidance settings, and those settings (or null when none is given).
function splitAvoidance(def) {
  if (def === null || typeof def !== 'object') throw argError(`an agent definition must be an object, got ${def}`);
  let av = null;
  const plain = {};
  for (const k of Object.keys(def)) {
    if (AVOIDANCE_FIELDS.includes(k)) (av ??= {})[k] = def[k];
    else plain[k] = def[k];
  }
  return [plain, av];
}

function vec(v, what) {
  if (!Array.isArray(v) && !ArrayBuffer.isView(v) || v.length !== 2) {
    throw new OrcaError('ORCA_ERR_ARGUMENT', `${what} must be a pair [x, y], got ${JSON.stringify(v)}`);
  }
  return v;
}

// The state of a simulation wrapper (shared with its scene's and its navigation objects'
// states; the FinalizationRegistry holds it, never the wrapper): the module, the pointer (0
// once destroyed), whether the wrapper owns it, the reused block of setPreferredVelocities and
// the cached views of positions() and velocities().
function simState(c, ptr, owned) {
  return { kind: 'sim', c, ptr, owned, pv: 0, pvBytes: 0, views: [null, null] };
}
function simCheck(s, st) {
  if (st !== 0) s.c.fail(st, s.c.str(s.c.x.ow_sim_last_error(s.ptr)));
}
function simLive(s) {
  if (!s.ptr) throw new OrcaError('ORCA_ERR_STALE', 'orca: the simulation was destroyed');
  return s.ptr;
}
// Frees what the wrapper state s holds in module memory (its object when it owns it) and
// marks it destroyed: destroy(), and the FinalizationRegistry for wrappers collected alive.
function release(s) {
  const x = s.c.x;
  if (s.kind === 'nav') {
    if (s.ptr) x.ow_nav_destroy(s.ptr);
  } else if (s.kind === 'scene') {
    if (s.ptr) x.ow_scenario_destroy(s.ptr);
    release(s.sim);
  } else {
    if (s.ptr && s.owned) x.ow_sim_destroy(s.ptr);
    if (s.pv) x.ow_free(s.pv);
    s.pv = 0;
    s.pvBytes = 0;
    s.views = [null, null];
  }
  s.ptr = 0;
}
// Wrappers that are collected without destroy() give their module memory back (where the
// engine has FinalizationRegistry; the time is the engine's choice).
const registry = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry(release) : null;
function track(wrapper, s) {
  registry?.register(wrapper, s, wrapper);
  return wrapper;
}
function untrack(wrapper, s) {
  registry?.unregister(wrapper);
  release(s);
}
// Symbol.dispose where the engine has it (`using`), else Node's name for it.
const DISPOSE = Symbol.dispose ?? Symbol.for('nodejs.dispose');

// A seed: a whole number or BigInt in [0, 2^64) (1 when absent).
function seed64(v, what = 'seed') {
  if (v === undefined) return 1n;
  if ((typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 2 ** 64) ||
      (typeof v === 'bigint' && v >= 0n && v < 2n ** 64n)) {
    return BigInt(v);
  }
  throw argError(`${what} must be a whole number in [0, 2^64), got ${typeof v === 'string' ? `'${v}'` : String(v)}`);
}

// def (any subset of DEF_FIELDS; the rest from `base`) into the scratch words of core c.
function writeDef(c, def, base) {
  if (def === null || typeof def !== 'object') throw argError(`an agent definition must be an object, got ${def}`);
  const w = c.f64(c.scratch, DEF_WORDS);
  if (base) w.set(base); else c.x.ow_agent_def_default(c.scratch);
  for (const k of Object.keys(def)) {
    if (!DEF_FIELDS.includes(k)) {
      throw new OrcaError('ORCA_ERR_ARGUMENT', `unknown agent field '${k}' (one of ${DEF_FIELDS.join(', ')})`);
    }
  }
  const put = (i, v, what) => { if (v !== undefined) { vec(v, what); w[i] = v[0]; w[i + 1] = v[1]; } };
  put(0, def.position, 'position');
  put(2, def.velocity, 'velocity');
  put(4, def.preferredVelocity, 'preferredVelocity');
  const num = (i, v) => { if (v !== undefined) w[i] = Number(v); };
  num(6, def.radius);
  num(7, def.maxSpeed);
  num(8, def.neighborDist);
  // The module carries max_neighbors as an int: a value no int holds exactly is refused here,
  // with the value as given (the library's range and wording for the rest).
  const mn = def.maxNeighbors === undefined ? undefined : Number(def.maxNeighbors);
  if (mn !== undefined && !(Number.isInteger(mn) && mn >= -(2 ** 31) && mn < 2 ** 31)) {
    throw argError(`max_neighbors must be in 0..${MAX_NEIGHBORS}, got ${String(def.maxNeighbors)}`);
  }
  num(9, mn);
  num(10, def.timeHorizon);
  num(11, def.obstacleTimeHorizon);
  return c.scratch;
}
// The handle of kind the module wrote at scratch + 128 (three words).
function takeHandle(c, kind) { return wordsHandle(kind, c.u32(c.scratch + 128, 3), 0); }

// The view of positions (which 0) or velocities (1) of simulation state s: the cached one
// while it still covers the current block (same memory buffer, address and length), else a
// new one.
function simView(s, which) {
  const c = s.c;
  const n = c.x.ow_sim_agent_count(simLive(s));
  const ptr = n ? (which ? c.x.ow_sim_velocities(s.ptr) : c.x.ow_sim_positions(s.ptr)) : 0;
  const v = s.views[which];
  if (v && v.buffer === c.memory.buffer && v.byteOffset === ptr && v.length === 2 * n) return v;
  return (s.views[which] = n ? c.f64(ptr, 2 * n) : new Float64Array(0));
}
// Copies view `which` of s into out (a Float64Array of at least 2 * agentCount entries).
function simCopy(s, which, out, call) {
  const v = simView(s, which);
  if (!(out instanceof Float64Array) || out.length < v.length) {
    throw argError(`${call}: expected a Float64Array of at least ${v.length} entries (2 per agent), got ${
      out instanceof Float64Array ? `one of ${out.length}` : out === null ? 'null' : typeof out}`);
  }
  out.set(v);
  return out;
}

// def without its stream, and the stream checked by the library (orca_check_stream), or
// undefined when none is given: refused before the agent is added.
function splitStream(s, def) {
  if (def === null || typeof def !== 'object' || def.stream === undefined) return [def, undefined];
  const { stream, ...plain } = def;
  simCheck(s, s.c.x.ow_check_stream(simLive(s), int32(stream, 'stream')));
  return [plain, stream];
}
// A whole number an int32 holds (what the C type can carry; the library checks the rest).
function int32(v, what) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) {
    throw argError(`${what} must be a whole number in [-2^31, 2^31), got ${v}`);
  }
  return v;
}
// Gives a just-added agent its checked stream; undo() takes it back if that still fails.
function applyStream(s, id, stream, undo) {
  const st = s.c.x.ow_agent_set_stream(s.ptr, ...handleWords(id, 'agent'), stream);
  if (st !== 0) {
    const msg = s.c.str(s.c.x.ow_sim_last_error(s.ptr));
    undo();
    s.c.fail(st, msg);
  }
}
// The pedestrian parameters in use (or the defaults when off) of the simulation of state s,
// and whether the model is on.
function pedestrianParams(s) {
  const on = s.c.x.ow_sim_get_pedestrian(simLive(s), s.c.scratch) === 1;
  const w = s.c.f64(s.c.scratch, 4);
  return [{ timeGap: w[0], buffer: w[1], counterReach: w[2], maxPlanes: w[3] }, on];
}
// params ({ timeGap, buffer, counterReach, maxPlanes }, any subset) over the parameters in use
// of state s, as the four arguments of ow_sim_set_pedestrian / ow_scenario_set_pedestrian.
function pedestrianArgs(s, params) {
  if (typeof params !== 'object') throw argError(`pedestrian parameters must be an object or null, got ${params}`);
  for (const k of Object.keys(params)) {
    if (!PEDESTRIAN_FIELDS.includes(k)) {
      throw argError(`unknown pedestrian parameter '${k}' (one of ${PEDESTRIAN_FIELDS.join(', ')})`);
    }
  }
  const p = { ...pedestrianParams(s)[0], ...params };
  return [Number(p.timeGap), Number(p.buffer), Number(p.counterReach), int32(p.maxPlanes, 'max_planes')];
}

// The full avoidance settings av (defaults where not given) after the library's check, for
// the simulation of state s.
function checkAvoidance(s, av) {
  const a = { priority: 1, layers: 1, mask: 0xFFFFFFFF, locked: false, ...av };
  simCheck(s, s.c.x.ow_check_avoidance(simLive(s), Number(a.priority), mask32(a.layers, 'layers'),
    mask32(a.mask, 'mask'), lockedInt(a.locked)));
  return a;
}
// Gives a just-added agent checked settings; undo() takes it back if that still fails.
function applyAvoidance(s, id, a, undo) {
  const st = s.c.x.ow_agent_set_avoidance(s.ptr, ...handleWords(id, 'agent'), Number(a.priority),
    a.layers, a.mask, lockedInt(a.locked));
  if (st !== 0) {
    const msg = s.c.str(s.c.x.ow_sim_last_error(s.ptr));
    undo();
    s.c.fail(st, msg);
  }
}

/** A simulation (orca_sim). Made by orca.createSim() (yours to destroy) or a scene (scene.sim,
 * destroyed with its scene). */
export class Sim {
  #s;
  #scene; // the scene that owns this simulation (kept alive while its sim is reachable)
  static {
    simStateOf = (sim, what) => {
      if (!(sim !== null && typeof sim === 'object' && #s in sim)) {
        throw argError(`${what}: expected a Sim (orca.createSim() or scene.sim)`);
      }
      return sim.#s;
    };
  }
  constructor(token, s, scene) {
    internalOnly(token, 'Sim');
    this.#s = s;
    this.#scene = scene;
  }
  get #c() { return this.#s.c; }
  /** Frees the simulation (again: nothing). A scene's simulation is the scene's: its destroy()
   * throws ORCA_ERR_ARGUMENT (destroy the scene). */
  destroy() {
    if (!this.#s.owned) {
      throw argError('this simulation belongs to a scene: destroy the scene (scene.destroy()), not scene.sim');
    }
    untrack(this, this.#s);
  }
  /** destroy(), for `using`. */
  [DISPOSE]() { this.destroy(); }
  /** Whether destroy() (or the owning scene's) has freed it. */
  get destroyed() { return this.#s.ptr === 0; }
  /** The simulation's identity (orca_sim_id): the SIM part of every handle it issues. */
  get id() { return this.#c.x.ow_sim_id(simLive(this.#s)); }

  /** Adds an agent (fields as defaultAgent(); missing ones take the defaults; the avoidance
   * settings priority, layers, mask and locked and the stream (docs/pedestrians.md) may be
   * given too, checked before it is added). */
  addAgent(def = {}) {
    const [withAv, stream] = splitStream(this.#s, def);
    const [plain, av] = splitAvoidance(withAv);
    const settings = av && checkAvoidance(this.#s, av);
    const words = writeDef(this.#c, plain);
    simCheck(this.#s, this.#c.x.ow_sim_add_agent(simLive(this.#s), words, this.#c.scratch + 128));
    const id = takeHandle(this.#c, 'agent');
    if (settings) applyAvoidance(this.#s, id, settings, () => this.removeAgent(id));
    if (stream !== undefined) applyStream(this.#s, id, stream, () => this.removeAgent(id));
    return id;
  }
  removeAgent(id) { simCheck(this.#s, this.#c.x.ow_sim_remove_agent(simLive(this.#s), ...handleWords(id, 'agent'))); }
  /** Removes several agents, exactly as removeAgent on each in turn. Every handle is checked
   * first: a stale one, one of another simulation or one listed twice removes nothing (the
   * message names ids[k]). */
  removeAgents(ids) { this.#removeHandles(ids, 'agent', 'removeAgents', LIMITS.AGENTS, 'ow_sim_remove_agents'); }
  // ids [handle, ...] as 3 * n words, to one batch call of the module; the count against the
  // library's limit before anything is read or allocated
  #removeHandles(ids, kind, call, limit, fn) {
    if (!Array.isArray(ids)) {
      throw new OrcaError('ORCA_ERR_ARGUMENT', `expected an array of handles, got ${typeof ids}`);
    }
    const n = ids.length;
    if (n > limit) throw limitError(call, 'ids', n, `the ${limit} ${kind}s a simulation holds`);
    this.#c.fits(12 * n, `${call} of ${n} handles`);
    const words = [];
    for (let k = 0; k < n; ++k) words.push(handleWords(ids[k], kind, `ids[${k}]`));
    const p = this.#c.alloc(12 * n, `${call} of ${n} handles`);
    try {
      const w = this.#c.u32(p, 3 * n);
      words.forEach((h, k) => w.set(h, 3 * k));
      simCheck(this.#s, this.#c.x[fn](simLive(this.#s), p, n));
    } finally {
      this.#c.x.ow_free(p);
    }
  }
  get agentCount() { return this.#c.x.ow_sim_agent_count(simLive(this.#s)); }
  /** The handle of the agent at index (0 .. agentCount - 1); out of range throws (OrcaError,
   * status ORCA_ERR_ARGUMENT): there is no null handle here. */
  agentAt(index) {
    const n = this.agentCount;
    if (!Number.isInteger(index) || index < 0 || index >= n) {
      throw new OrcaError('ORCA_ERR_ARGUMENT', `agent index ${index} out of range (${n} agent${n === 1 ? '' : 's'})`);
    }
    this.#c.x.ow_sim_agent_at(this.#s.ptr, index, this.#c.scratch + 128);
    return takeHandle(this.#c, 'agent');
  }
  agentIndex(id) { return this.#c.x.ow_sim_agent_index(simLive(this.#s), ...handleWords(id, 'agent')); }
  getAgent(id) {
    simCheck(this.#s, this.#c.x.ow_agent_get(simLive(this.#s), ...handleWords(id, 'agent'), this.#c.scratch));
    return wordsToDef(this.#c.f64(this.#c.scratch, DEF_WORDS));
  }
  /** Changes the given fields of an agent (the others are kept). */
  setAgent(id, def) {
    const h = handleWords(id, 'agent');
    simCheck(this.#s, this.#c.x.ow_agent_get(simLive(this.#s), ...h, this.#c.scratch));
    const cur = this.#c.f64(this.#c.scratch, DEF_WORDS).slice();
    const words = writeDef(this.#c, def, cur);
    simCheck(this.#s, this.#c.x.ow_agent_set(this.#s.ptr, ...h, words));
  }

  addSegment(a, b) {
    vec(a, 'segment end a');
    vec(b, 'segment end b');
    simCheck(this.#s, this.#c.x.ow_sim_add_segment(simLive(this.#s), a[0], a[1], b[0], b[1], this.#c.scratch + 128));
    return takeHandle(this.#c, 'segment');
  }
  /** Adds the segments a[k]-b[k] (a, b: arrays of [x, y] of one length), in order, exactly as
   * addSegment on each; returns their handles. Every point is checked first: on a refusal
   * (naming a[k] or b[k] and the value) nothing is added. */
  addSegments(a, b) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) {
      throw new OrcaError('ORCA_ERR_ARGUMENT', 'addSegments: a and b must be arrays of [x, y] of one length');
    }
    const n = a.length;
    const have = this.segmentCount;
    if (n > LIMITS.SEGMENTS - have) {
      throw limitError('addSegments', 'a', n, `the ${LIMITS.SEGMENTS} segments a simulation holds in all (it has ${have})`);
    }
    this.#c.fits(44 * n, `addSegments of ${n} segments`);
    for (let k = 0; k < n; ++k) vec(a[k], `a[${k}]`);
    for (let k = 0; k < n; ++k) vec(b[k], `b[${k}]`);
    const p = this.#c.alloc(32 * n, `addSegments of ${n} segments`);
    let q = 0;
    try {
      q = this.#c.alloc(12 * n, `addSegments of ${n} segments`);
      const f = this.#c.f64(p, 4 * n);
      a.forEach((v, k) => { f[2 * k] = v[0]; f[2 * k + 1] = v[1]; });
      b.forEach((v, k) => { f[2 * n + 2 * k] = v[0]; f[2 * n + 2 * k + 1] = v[1]; });
      simCheck(this.#s, this.#c.x.ow_sim_add_segments(simLive(this.#s), p, n, q));
      const w = this.#c.u32(q, 3 * n);
      const out = [];
      for (let k = 0; k < n; ++k) out.push(wordsHandle('segment', w, 3 * k));
      return out;
    } finally {
      this.#c.x.ow_free(p);
      if (q) this.#c.x.ow_free(q);
    }
  }
  /** Removes a segment (the others keep their order). Removals are deferred: the next step,
   * query or hash compacts them all in one pass. */
  removeSegment(id) {
    simCheck(this.#s, this.#c.x.ow_sim_remove_segment(simLive(this.#s), ...handleWords(id, 'segment')));
  }
  /** Removes several segments, exactly as removeSegment on each in turn; checked as
   * removeAgents. */
  removeSegments(ids) {
    this.#removeHandles(ids, 'segment', 'removeSegments', LIMITS.SEGMENTS, 'ow_sim_remove_segments');
  }
  get segmentCount() { return this.#c.x.ow_sim_segment_count(simLive(this.#s)); }
  /** All segments in index order: [{ a: [x, y], b: [x, y], id }]. */
  segments() {
    const out = [];
    const n = this.segmentCount;
    for (let i = 0; i < n; ++i) {
      simCheck(this.#s, this.#c.x.ow_sim_segment_at(this.#s.ptr, i, this.#c.scratch, this.#c.scratch + 128));
      const w = this.#c.f64(this.#c.scratch, 4);
      out.push({ a: [w[0], w[1]], b: [w[2], w[3]], id: takeHandle(this.#c, 'segment') });
    }
    return out;
  }

  // --- walkable-area boundaries (docs/extensions.md, "Walkable-area boundaries") ---------
  /** Adds one closed loop [[x, y], ...] (at least 3 points), walkable on the left of each
   * edge (outer loops counter-clockwise, holes clockwise); returns its handle. */
  addBoundary(points) {
    if (!Array.isArray(points)) {
      throw new OrcaError('ORCA_ERR_ARGUMENT', 'boundary: expected an array of [x, y] points');
    }
    const n = points.length;
    if (n > LIMITS.BOUNDARY_EDGES) {
      throw limitError('addBoundary', 'points', n, `the ${LIMITS.BOUNDARY_EDGES} boundary edges a simulation holds in all`);
    }
    this.#c.fits(16 * n, `a boundary of ${n} points`);
    for (let k = 0; k < n; ++k) vec(points[k], `boundary point ${k}`);
    const p = this.#c.alloc(16 * n, `a boundary of ${n} points`);
    try {
      const f = this.#c.f64(p, 2 * n);
      points.forEach((q, k) => { f[2 * k] = q[0]; f[2 * k + 1] = q[1]; });
      simCheck(this.#s, this.#c.x.ow_sim_add_boundary(simLive(this.#s), p, n, this.#c.scratch + 128));
    } finally {
      this.#c.x.ow_free(p);
    }
    return takeHandle(this.#c, 'boundary');
  }
  removeBoundary(id) {
    simCheck(this.#s, this.#c.x.ow_sim_remove_boundary(simLive(this.#s), ...handleWords(id, 'boundary')));
  }
  get boundaryCount() { return this.#c.x.ow_sim_boundary_count(simLive(this.#s)); }
  /** All loops in index order: [{ points: [[x, y], ...], id }]. */
  boundaries() {
    const out = [];
    const n = this.boundaryCount;
    for (let i = 0; i < n; ++i) {
      simCheck(this.#s, this.#c.x.ow_sim_boundary_at(this.#s.ptr, i, 0, 0, this.#c.scratch, this.#c.scratch + 128));
      const m = new Int32Array(this.#c.memory.buffer, this.#c.scratch, 1)[0];
      const p = this.#c.alloc(16 * m, `a boundary of ${m} points`);
      try {
        simCheck(this.#s, this.#c.x.ow_sim_boundary_at(this.#s.ptr, i, p, m, this.#c.scratch, this.#c.scratch + 128));
        const f = this.#c.f64(p, 2 * m);
        const points = [];
        for (let k = 0; k < m; ++k) points.push([f[2 * k], f[2 * k + 1]]);
        out.push({ points, id: takeHandle(this.#c, 'boundary') });
      } finally {
        this.#c.x.ow_free(p);
      }
    }
    return out;
  }
  /** Against the boundaries now: { deepest (fraction of radius), outside (agents) }. */
  measureBoundary() {
    simCheck(this.#s, this.#c.x.ow_sim_measure_boundary(simLive(this.#s), this.#c.scratch));
    const w = this.#c.f64(this.#c.scratch, 2);
    return { deepest: w[0], outside: w[1] };
  }
  // --- end of walkable-area boundaries -----------------------------------------------------

  /** Sets every agent's preferred velocity: v holds 2 * agentCount numbers (x0 y0 x1 y1 ...;
   * a Float64Array or an array). Copied through a block of module memory that the simulation
   * keeps for the next call (allocated again only when the agent count grows): no allocation
   * per frame. */
  setPreferredVelocities(v) {
    const s = this.#s;
    const n = this.agentCount;
    if (!v || v.length !== 2 * n) {
      throw new OrcaError('ORCA_ERR_ARGUMENT', `preferred velocities: expected ${2 * n} numbers (2 per agent), got ${v ? v.length : v}`);
    }
    if (s.pvBytes < 16 * n) {
      const p = this.#c.alloc(16 * n, `the preferred velocities of ${n} agents`);
      if (s.pv) this.#c.x.ow_free(s.pv);
      s.pv = p;
      s.pvBytes = 16 * n;
    }
    this.#c.f64(s.pv, 2 * n).set(v);
    simCheck(s, this.#c.x.ow_sim_swap_preferred_velocities(s.ptr, s.pv, n));
  }
  step(dt) { simCheck(this.#s, this.#c.x.ow_sim_step(simLive(this.#s), Number(dt))); }
  get stepCount() { return Number(this.#c.x.ow_sim_step_count(simLive(this.#s))); }
  get lastFallbackCount() { return this.#c.x.ow_sim_last_fallback_count(simLive(this.#s)); }
  /** The state hash (orca_sim_hash) as 16 hex digits, as `orca run` prints it. */
  hash() { return BigInt.asUintN(64, this.#c.x.ow_sim_hash(simLive(this.#s))).toString(16).padStart(16, '0'); }
  /** The positions x0 y0 x1 y1 ... (index order) as a Float64Array view on the module's
   * memory, checked at each call: the same object while it still covers the simulation's
   * current block, a new one after the block moved (adds, removals, load, memory growth).
   * A view kept across such a call is stale: `v === sim.positions()` tells; read through a
   * fresh call, or copy with positionsInto(). */
  positions() { return simView(this.#s, 0); }
  /** The velocities, as positions(). */
  velocities() { return simView(this.#s, 1); }
  /** Copies the positions into out (a Float64Array of at least 2 * agentCount entries;
   * returns it): the copy for keeping, or transferring to another thread. */
  positionsInto(out) { return simCopy(this.#s, 0, out, 'positionsInto'); }
  /** Copies the velocities into out, as positionsInto. */
  velocitiesInto(out) { return simCopy(this.#s, 1, out, 'velocitiesInto'); }
  /** The handles of all agents in index order (one call of the module): what agentAt(i)
   * gives for each i, for renderers that key sprites by agent. */
  handles() {
    const n = this.#c.x.ow_sim_agent_count(simLive(this.#s));
    if (n === 0) return [];
    const p = this.#c.alloc(12 * n, `the handles of ${n} agents`);
    try {
      this.#c.x.ow_sim_agent_handles(this.#s.ptr, p, n);
      const w = this.#c.u32(p, 3 * n);
      const out = new Array(n);
      for (let k = 0; k < n; ++k) out[k] = wordsHandle('agent', w, 3 * k);
      return out;
    } finally {
      this.#c.x.ow_free(p);
    }
  }
  /** Deepest overlaps now, as fractions of radius: { agents, walls }. */
  measureOverlap() {
    simCheck(this.#s, this.#c.x.ow_sim_measure_overlap(simLive(this.#s), this.#c.scratch));
    const w = this.#c.f64(this.#c.scratch, 2);
    return { agents: w[0], walls: w[1] };
  }
  /** Spatial queries (docs/extensions.md, "Spatial queries"): arrays of agent indices, exact
   * (equal to a scan over every agent). queryRadius: within radius of center, by (squared
   * distance, index); queryNearest: the k nearest, in that order; queryBox: lo <= position <= hi
   * (edges included), in index order. Use agentAt(i) for a handle. */
  queryRadius(center, radius) {
    vec(center, 'center');
    return this.#query((out, n, cnt) =>
      this.#c.x.ow_sim_query_radius(this.#s.ptr, Number(center[0]), Number(center[1]), Number(radius), out, n, cnt));
  }
  queryNearest(point, k) {
    vec(point, 'point');
    if (!Number.isInteger(k) || k < 0) {
      throw new OrcaError('ORCA_ERR_ARGUMENT', `k must be a whole number >= 0, got ${k}`);
    }
    return this.#query((out, n, cnt) =>
      this.#c.x.ow_sim_query_nearest(this.#s.ptr, Number(point[0]), Number(point[1]),
        k > n ? n : k, out, cnt));
  }
  queryBox(lo, hi) {
    vec(lo, 'lo');
    vec(hi, 'hi');
    return this.#query((out, n, cnt) =>
      this.#c.x.ow_sim_query_box(this.#s.ptr, Number(lo[0]), Number(lo[1]), Number(hi[0]), Number(hi[1]), out, n, cnt));
  }
  #query(call) {
    const n = this.#c.x.ow_sim_agent_count(simLive(this.#s));
    const out = this.#c.alloc(4 * n + 8, `a query over ${n} agents`);
    try {
      const cnt = out + 4 * n;
      simCheck(this.#s, call(out, n, cnt));
      const count = this.#c.u32(cnt, 1)[0];
      return Array.from(new Int32Array(this.#c.memory.buffer, out, Math.min(count, n)));
    } finally {
      this.#c.x.ow_free(out);
    }
  }
  // --- avoidance extensions and diagnostics (docs/extensions.md; issue 16) ---------------
  /** { priority, layers, mask, locked } of an agent (orca_agent_get_avoidance). */
  getAvoidance(id) {
    simCheck(this.#s, this.#c.x.ow_agent_get_avoidance(simLive(this.#s), ...handleWords(id, 'agent'), this.#c.scratch));
    const w = this.#c.f64(this.#c.scratch, 4);
    return { priority: w[0], layers: w[1], mask: w[2], locked: w[3] === 1 };
  }
  /** Changes the settings given ({ priority, layers, mask, locked }; the others are kept) in
   * one write, checked by the library first: a refusal throws its message, nothing changes. */
  setAvoidance(id, settings) {
    const a = { ...this.getAvoidance(id), ...settings };
    for (const k of Object.keys(settings)) {
      if (!AVOIDANCE_FIELDS.includes(k)) {
        throw argError(`unknown avoidance setting '${k}' (one of ${AVOIDANCE_FIELDS.join(', ')})`);
      }
    }
    simCheck(this.#s, this.#c.x.ow_agent_set_avoidance(this.#s.ptr, ...handleWords(id, 'agent'), Number(a.priority),
      mask32(a.layers, 'layers'), mask32(a.mask, 'mask'), lockedInt(a.locked)));
  }
  /** A higher priority yields less: against B an agent takes pB / (pA + pB); 2^-30 .. 2^30. */
  setPriority(id, priority) {
    simCheck(this.#s, this.#c.x.ow_agent_set_priority(simLive(this.#s), ...handleWords(id, 'agent'), Number(priority)));
  }
  /** The layers the agent is on and the layers of the agents it considers (A considers B when
   * A.mask & B.layers != 0), 32-bit masks. */
  setLayers(id, layers, mask) {
    simCheck(this.#s, this.#c.x.ow_agent_set_layers(simLive(this.#s), ...handleWords(id, 'agent'),
      mask32(layers, 'layers'), mask32(mask, 'mask')));
  }
  /** A locked agent keeps its velocity and is not solved; others avoid it as a moving obstacle. */
  setLocked(id, locked) {
    simCheck(this.#s, this.#c.x.ow_agent_set_locked(simLive(this.#s), ...handleWords(id, 'agent'), lockedInt(locked)));
  }
  /** Per-agent diagnostics on or off (off at creation; not state: the hash ignores it). */
  setDiagnostics(on) { simCheck(this.#s, this.#c.x.ow_sim_set_diagnostics(simLive(this.#s), on ? 1 : 0)); }
  get diagnosticsEnabled() { return this.#c.x.ow_sim_get_diagnostics(simLive(this.#s)) === 1; }
  /** Separation of coincident agents on or off (off at creation; state: the hash and
   * snapshots carry it): agents at exactly one point part in one step (docs/extensions.md,
   * "Coincident agents"). */
  setSeparation(on) { simCheck(this.#s, this.#c.x.ow_sim_set_separation(simLive(this.#s), on ? 1 : 0)); }
  get separation() { return this.#c.x.ow_sim_get_separation(simLive(this.#s)) === 1; }
  /** True when the next step separates coincident agents: the option, a boundary loop, or
   * avoidance settings away from the defaults. */
  get separationActive() { return this.#c.x.ow_sim_separation_active(simLive(this.#s)) === 1; }
  /** The density-dependent speed (docs/extensions.md, "Density-dependent speed"; state: the
   * hash and snapshots carry it): setDensitySpeed({ radius, gamma, maxDensity }) turns it on,
   * a field not given keeping the value in use (the default when off: radius 2 m, gamma
   * 1.913, maxDensity 5.4); setDensitySpeed(null) turns it off. The library checks the
   * ranges: a refusal throws its message and nothing changes. */
  setDensitySpeed(params) {
    if (params === null || params === undefined) {
      simCheck(this.#s, this.#c.x.ow_sim_clear_density_speed(simLive(this.#s)));
      return;
    }
    for (const k of Object.keys(params)) {
      if (!DENSITY_FIELDS.includes(k)) {
        throw argError(`unknown density speed parameter '${k}' (one of ${DENSITY_FIELDS.join(', ')})`);
      }
    }
    const p = { ...this.#densityParams(), ...params };
    simCheck(this.#s, this.#c.x.ow_sim_set_density_speed(this.#s.ptr, Number(p.radius), Number(p.gamma),
      Number(p.maxDensity)));
  }
  /** { radius, gamma, maxDensity } when on, else null. */
  get densitySpeed() {
    return this.#c.x.ow_sim_get_density_speed(simLive(this.#s), this.#c.scratch) === 1 ? this.#densityParams() : null;
  }
  // The parameters in use, or the defaults when off.
  #densityParams() {
    this.#c.x.ow_sim_get_density_speed(simLive(this.#s), this.#c.scratch);
    const w = this.#c.f64(this.#c.scratch, 3);
    return { radius: w[0], gamma: w[1], maxDensity: w[2] };
  }
  /** The pedestrian model (docs/pedestrians.md; state: the hash and snapshots carry it):
   * setPedestrian({ timeGap, buffer, counterReach, maxPlanes }) turns it on, a field not
   * given keeping the value in use (the default when off: 0.5 s, 0.02 m, 2 m, 4);
   * setPedestrian(null) turns it off. The library checks the ranges (and refuses it with the
   * density-dependent speed): a refusal throws its message and nothing changes. */
  setPedestrian(params) {
    if (params === null || params === undefined) {
      simCheck(this.#s, this.#c.x.ow_sim_clear_pedestrian(simLive(this.#s)));
      return;
    }
    simCheck(this.#s, this.#c.x.ow_sim_set_pedestrian(this.#s.ptr, ...pedestrianArgs(this.#s, params)));
  }
  /** { timeGap, buffer, counterReach, maxPlanes } when on, else null. */
  get pedestrian() {
    const [p, on] = pedestrianParams(this.#s);
    return on ? p : null;
  }
  /** An agent's stream: -1 (none, the default) or a whole number >= 0; agents of different
   * streams walking against each other keep their full time horizon and no headway
   * (docs/pedestrians.md). */
  setStream(id, stream) {
    simCheck(this.#s, this.#c.x.ow_agent_set_stream(simLive(this.#s), ...handleWords(id, 'agent'),
      int32(stream, 'stream')));
  }
  getStream(id) {
    simCheck(this.#s, this.#c.x.ow_agent_get_stream(simLive(this.#s), ...handleWords(id, 'agent'), this.#c.scratch));
    return new Int32Array(this.#c.memory.buffer, this.#c.scratch, 1)[0];
  }
  /** Every agent's diagnostics of the last step with diagnostics on, in index order (one
   * orca_sim_diagnostics): { fallback, failedConstraint, neighborCount, candidates,
   * neighborsCut, blocked, locked, headwayPlanes, counterMode }, each a new Int32Array of
   * agentCount entries. */
  diagnostics() {
    const n = this.#c.x.ow_sim_agent_count(simLive(this.#s));
    const bytes = 4 * DIAG_WORDS * n;
    const buf = this.#c.alloc(bytes + 8, `the diagnostics of ${n} agents`);
    try {
      simCheck(this.#s, this.#c.x.ow_sim_diagnostics(this.#s.ptr, buf, n, buf + bytes));
      const table = new Int32Array(this.#c.memory.buffer, buf, DIAG_WORDS * n);
      const out = {};
      DIAGNOSTIC_FIELDS.forEach((k, j) => {
        const col = new Int32Array(n);
        for (let i = 0; i < n; ++i) col[i] = table[DIAG_WORDS * i + j];
        out[k] = col;
      });
      return out;
    } finally {
      this.#c.x.ow_free(buf);
    }
  }
  /** One agent's diagnostics of the last step with diagnostics on (the fields of diagnostics()). */
  agentDiagnostics(id) {
    simCheck(this.#s, this.#c.x.ow_agent_get_diagnostics(simLive(this.#s), ...handleWords(id, 'agent'), this.#c.scratch));
    const w = new Int32Array(this.#c.memory.buffer, this.#c.scratch, DIAG_WORDS);
    return Object.fromEntries(DIAGNOSTIC_FIELDS.map((k, j) => [k, w[j]]));
  }
  /** The counts of the last step with diagnostics on: { agents, fallback, cut, blocked, locked,
   * headway, counter } (headway half-planes and agents in counter mode: docs/pedestrians.md). */
  stepDiagnostics() {
    simCheck(this.#s, this.#c.x.ow_sim_step_diagnostics(simLive(this.#s), this.#c.scratch));
    const w = new Int32Array(this.#c.memory.buffer, this.#c.scratch, 7);
    return { agents: w[0], fallback: w[1], cut: w[2], blocked: w[3], locked: w[4], headway: w[5],
      counter: w[6] };
  }

  /** One path query over this simulation's walls (Nav.path; a Nav from orca.createNav(sim)
   * keeps the graph between queries: use one for many). */
  navPath(radius, start, goals) {
    const nav = makeNav(this.#c, this);
    try {
      return nav.path(radius, start, goals);
    } finally {
      nav.destroy();
    }
  }

  get vectorKernels() { return this.#c.x.ow_sim_get_vector_kernels(simLive(this.#s)) === 1; }
  set vectorKernels(on) { this.#c.x.ow_sim_set_vector_kernels(simLive(this.#s), on ? 1 : 0); }

  /** The whole state as a snapshot (Uint8Array, a copy). */
  save() {
    const s = this.#c.scratch + 128;
    simCheck(this.#s, this.#c.x.ow_sim_save(simLive(this.#s), s, s + 4));
    const [ptr, size] = this.#c.u32(s, 2);
    const bytes = new Uint8Array(this.#c.memory.buffer, ptr, size).slice();
    this.#c.x.ow_free(ptr);
    return bytes;
  }
  /** Replaces the state with a snapshot from save() (here or natively: the format is the same). */
  load(bytes) {
    if (!(bytes instanceof Uint8Array)) {
      throw new OrcaError('ORCA_ERR_ARGUMENT', 'load: expected a Uint8Array snapshot');
    }
    const p = this.#c.alloc(bytes.length, `a snapshot of ${bytes.length} bytes`);
    try {
      new Uint8Array(this.#c.memory.buffer, p, bytes.length).set(bytes);
      simCheck(this.#s, this.#c.x.ow_sim_load(simLive(this.#s), p, bytes.length));
    } finally {
      this.#c.x.ow_free(p);
    }
  }
}

// A Nav over the walls of sim (a Sim wrapper) in core c.
function makeNav(c, sim) {
  const ss = simStateOf(sim, 'createNav');
  const st = c.x.ow_nav_create(simLive(ss), c.scratch);
  if (st !== 0) c.fail(st, 'out of memory creating the navigation object');
  const s = { kind: 'nav', c, ptr: c.u32(c.scratch, 1)[0], sim: ss };
  return track(new Nav(INTERNAL, s, sim), s);
}

/**
 * The path query (orca/nav.h; docs/navigation.md): shortest paths through the walls of a
 * simulation (segments and walkable-area loops) for a disc that keeps its radius from every
 * wall. It reads the walls at each query and rebuilds what it keeps when they changed; the
 * graph for a radius is built by the first query for it and kept. destroy() it before its
 * simulation (a query after the simulation was destroyed throws).
 */
export class Nav {
  #s;
  #sim;
  constructor(token, s, sim) {
    internalOnly(token, 'Nav');
    this.#s = s;
    this.#sim = sim;
  }
  get #c() { return this.#s.c; }
  #live() {
    if (!this.#s.ptr) throw new OrcaError('ORCA_ERR_STALE', 'orca: the navigation object was destroyed');
    simLive(this.#s.sim);
    return this.#s.ptr;
  }
  #check(st) {
    if (st !== 0) this.#c.fail(st, this.#c.str(this.#c.x.ow_nav_last_error(this.#s.ptr)));
  }
  /** The simulation whose walls it reads. */
  get sim() { return this.#sim; }
  /** Frees it (again: nothing). */
  destroy() { untrack(this, this.#s); }
  /** destroy(), for `using`. */
  [DISPOSE]() { this.destroy(); }
  /** Whether destroy() has freed it. */
  get destroyed() { return this.#s.ptr === 0; }
  /** The shortest path of a disc of radius ([2^-20, 2^20] m) from start [x, y] to the nearest
   * of goals [[x, y], ...] (1 to LIMITS.NAV_GOALS; ties to the lower index): { result ('ok',
   * 'no_path', 'start_blocked', 'goal_blocked'), length (m), goalIndex, corners (as
   * Scene.agentPath) }; length and goalIndex null unless 'ok'. */
  path(radius, start, goals) {
    this.#live();
    vec(start, 'start');
    if (!Array.isArray(goals)) throw argError('path: expected an array of [x, y] goals');
    const n = goals.length;
    if (n > LIMITS.NAV_GOALS) throw limitError('path', 'goals', n, `the ${LIMITS.NAV_GOALS} goals of a query`);
    for (let k = 0; k < n; ++k) vec(goals[k], `goal ${k}`);
    let cap = 32;
    for (;;) {
      const buf = this.#c.alloc(16 * n + 32 + CORNER_BYTES * cap, `a path query of ${n} goals`);
      try {
        const g = this.#c.f64(buf + 32, 2 * n);
        goals.forEach((q, k) => { g[2 * k] = Number(q[0]); g[2 * k + 1] = Number(q[1]); });
        const cp = buf + 32 + 16 * n;
        this.#check(this.#c.x.ow_nav_path(this.#s.ptr, Number(radius), Number(start[0]), Number(start[1]),
          buf + 32, n, buf, cp, cap));
        const w = this.#c.f64(buf, 4);
        const result = NAV_RESULTS[w[0]];
        if (result !== 'ok') return { result, length: null, goalIndex: null, corners: [] };
        if (w[3] > cap) { cap = w[3]; continue; } // asked again: the graph is kept
        return { result, length: w[1], goalIndex: w[2], corners: readCorners(this.#c, cp, w[3]) };
      } finally {
        this.#c.x.ow_free(buf);
      }
    }
  }
  /** { walls, vertices, legs, bytes } of the graph for radius (built if needed). */
  stats(radius) {
    this.#check(this.#c.x.ow_nav_stats(this.#live(), Number(radius), this.#c.scratch));
    const w = this.#c.f64(this.#c.scratch, 4);
    return { walls: w[0], vertices: w[1], legs: w[2], bytes: w[3] };
  }
}

// A Scene over the scenario at ptr in core c.
function makeScene(c, ptr) {
  const s = { kind: 'scene', c, ptr, sim: simState(c, c.x.ow_scenario_sim(ptr), false) };
  return track(new Scene(INTERNAL, s), s);
}

/** A scenario (orca_scenario): a simulation, goals and the preferred-velocity rule. */
export class Scene {
  #s;
  #sim;
  static {
    sceneStateOf = (scene) => scene.#s;
  }
  constructor(token, s) {
    internalOnly(token, 'Scene');
    this.#s = s;
    this.#sim = new Sim(INTERNAL, s.sim, this);
  }
  get #c() { return this.#s.c; }
  #check(st) {
    if (st !== 0) this.#c.fail(st, this.#c.str(this.#c.x.ow_scenario_last_error(this.#s.ptr)));
  }
  #live() {
    if (!this.#s.ptr) throw new OrcaError('ORCA_ERR_STALE', 'orca: the scene was destroyed');
    return this.#s.ptr;
  }
  /** Its simulation (destroyed with the scene; not to be destroyed on its own). */
  get sim() { return this.#sim; }
  /** Frees the scene and its simulation (again: nothing). */
  destroy() { untrack(this, this.#s); }
  /** destroy(), for `using`. */
  [DISPOSE]() { this.destroy(); }
  /** Whether destroy() has freed it. */
  get destroyed() { return this.#s.ptr === 0; }
  get name() { return this.#c.str(this.#c.x.ow_scenario_name(this.#live())); }
  get dt() { return this.#c.x.ow_scenario_dt(this.#live()); }
  get seed() { return BigInt.asUintN(64, this.#c.x.ow_scenario_seed(this.#live())); }
  /** One step: the rule's preferred velocities, then the simulation's step by dt. */
  step() { this.#check(this.#c.x.ow_scenario_step(this.#live())); }
  /** Adds an agent with a goal: { kind, target: [x, y], speed }. The defaults are the library's
   * (orca_goal_default, docs/scenarios.md "Defaults"): kind GOAL.POINT when a target is given,
   * else GOAL.NONE; speed (a point goal's preferred speed) 1 m/s. A point or velocity goal
   * needs a target. def as Sim.addAgent (avoidance settings and stream included). While the
   * pedestrian model is on (setPedestrian) the fields not given are the preset's
   * (orca.pedestrianAgent()), a point or set goal's speed not given is the preset's free
   * speed drawn for this agent, and a goal-set agent's stream is its set's index unless
   * given. */
  addAgent(def = {}, goal = {}) {
    const [withAv, stream] = splitStream(this.#s.sim, def);
    const [plain, av] = splitAvoidance(withAv); // avoidance settings: checked before the agent is added
    const settings = av && checkAvoidance(this.#s.sim, av);
    const g = this.#goalArgs(goal);
    let base;
    if (this.pedestrian) {
      this.#c.x.ow_pedestrian_agent_def(this.#c.scratch);
      base = this.#c.f64(this.#c.scratch, DEF_WORDS).slice();
      if (goal.speed === undefined) g.speed = this.#c.x.ow_scenario_pedestrian_speed(this.#live());
    }
    const words = writeDef(this.#c, plain, base);
    this.#check(this.#c.x.ow_scenario_add_agent(this.#live(), words, g.kind, g.x, g.y, g.speed, g.set,
      this.#c.scratch + 128));
    const id = takeHandle(this.#c, 'agent');
    if (settings) applyAvoidance(this.#s.sim, id, settings, () => {}); // only memory can refuse it
    if (stream !== undefined) applyStream(this.#s.sim, id, stream, () => {}); // likewise
    return id;
  }
  /** The pedestrian preset (orca_scenario_set_pedestrian; docs/pedestrians.md): the model on
   * with params ({ timeGap, buffer, counterReach, maxPlanes }, a field not given keeping the
   * value in use, the default when off), every goal-set agent without a stream given its
   * set's index, and the preset's defaults for the agents added afterwards (addAgent);
   * setPedestrian(null) turns the model off. */
  setPedestrian(params) {
    if (params === null || params === undefined) {
      this.#check(this.#c.x.ow_scenario_clear_pedestrian(this.#live()));
      return;
    }
    const args = pedestrianArgs(this.#s.sim, params);
    this.#check(this.#c.x.ow_scenario_set_pedestrian(this.#live(), ...args));
  }
  /** The model's parameters when on, else null (as sim.pedestrian). */
  get pedestrian() { return this.#sim.pedestrian; }
  /** A goal { kind, target, speed, goalSet } as addAgent reads it: { kind, x, y, speed, set }. */
  #goalArgs(goal) {
    if (goal === null || typeof goal !== 'object') throw argError(`a goal must be an object, got ${goal}`);
    const dflt = goalDefault(this.#c);
    const hasSet = goal.goalSet !== undefined && goal.goalSet !== null;
    const kind = goal.kind ?? (hasSet ? GOAL.SET : goal.target !== undefined ? GOAL.POINT : dflt.kind);
    let set = -1;
    if (kind === GOAL.SET) {
      if (!hasSet) throw argError('a goal-set goal needs goalSet (a set\'s name or index)');
      if (goal.target !== undefined) throw argError('a goal-set goal takes goalSet, not a target');
      set = this.#goalSetIndex(goal.goalSet);
    } else {
      if (hasSet) throw argError(`goalSet is for a GOAL.SET goal, not kind ${kind}`);
      if (kind !== GOAL.NONE && goal.target === undefined) {
        throw argError('a point or velocity goal needs a target');
      }
    }
    const target = vec(goal.target ?? dflt.target, 'goal target');
    return { kind, x: Number(target[0]), y: Number(target[1]), speed: Number(goal.speed ?? dflt.speed), set };
  }
  /** Gives the agent at index a new goal (read as addAgent reads one). With navigation on it
   * plans a path to it at the next step; a goal that is neither a point nor a goal set drops
   * its path state. An agent with waypoints is refused (remove them first:
   * setWaypoints(index, [])); a refusal names the value and changes nothing. */
  setGoal(index, goal = {}) {
    if (!Number.isInteger(index)) throw argError(`setGoal: index must be an integer, got ${index}`);
    const g = this.#goalArgs(goal);
    this.#check(this.#c.x.ow_scenario_set_agent_goal(this.#live(), index, g.kind, g.x, g.y, g.speed, g.set));
  }
  /** The goal and start of the agent at index: { kind, target, speed, start, goalSet }; for a
   * goal-set goal target is the set's point it heads for now and goalSet the set's name (null
   * for the other kinds). */
  goal(index) {
    this.#check(this.#c.x.ow_scenario_agent_goal(this.#live(), index, this.#c.scratch));
    const w = this.#c.f64(this.#c.scratch, 7);
    const g = { kind: w[0], target: [w[1], w[2]], speed: w[3], start: [w[4], w[5]], goalSet: null };
    if (w[6] >= 0) g.goalSet = this.#c.str(this.#c.x.ow_scenario_goal_set_get(this.#s.ptr, w[6], 0, 0, this.#c.scratch, this.#c.scratch + 8));
    return g;
  }

  // --- navigation (docs/navigation.md) ---------------------------------------------------
  /** Navigation on or off (off at creation): agents with a point or goal-set goal walk along
   * shortest paths round the walls that keep their radius from every wall. */
  setNavigation(on) { this.#check(this.#c.x.ow_scenario_set_navigation(this.#live(), on ? 1 : 0)); }
  get navigation() { return this.#c.x.ow_scenario_get_navigation(this.#live()) === 1; }
  /** Agents whose last plan found no path (they stand still). */
  get navUnreachable() { return this.#c.x.ow_scenario_nav_unreachable(this.#live()); }
  /** The leg check on or off (off at creation): an agent that has made no progress plans
   * again when its leg is blocked by a wall (docs/navigation.md, "Following a path"). */
  setNavCheck(on) { this.#check(this.#c.x.ow_scenario_set_nav_check(this.#live(), on ? 1 : 0)); }
  get navCheck() { return this.#c.x.ow_scenario_get_nav_check(this.#live()) === 1; }
  /** How goal-set agents choose their point: 'nearest' (at creation), 'calm' or 'quickest'
   * (docs/navigation.md, "Exit choice"). */
  setExitChoice(choice) {
    const k = EXIT_CHOICES.indexOf(choice);
    if (k < 0) throw argError(`exitChoice must be 'nearest', 'calm' or 'quickest', got '${choice}'`);
    this.#check(this.#c.x.ow_scenario_set_exit_choice(this.#live(), k));
  }
  get exitChoice() { return EXIT_CHOICES[this.#c.x.ow_scenario_get_exit_choice(this.#live())]; }
  /** Sets the capacity of each point of the exit set (name or index), agents a second, for
   * the 'quickest' exit choice (finite, in [2^-30, 2^30]; 1 until set). */
  setGoalSetCapacity(set, capacity) {
    this.#check(this.#c.x.ow_scenario_set_goal_set_capacity(this.#live(), this.#goalSetIndex(set), Number(capacity)));
  }
  /** The capacity of each point of the set (name or index), agents a second. */
  goalSetCapacity(set) {
    this.#check(this.#c.x.ow_scenario_goal_set_capacity(this.#live(), this.#goalSetIndex(set), this.#c.scratch));
    return this.#c.f64(this.#c.scratch, 1)[0];
  }
  /** { count, lastStep }: agents that left by point `point` of the exit set (name or index). */
  exitDepartures(set, point) {
    this.#check(this.#c.x.ow_scenario_exit_departures(this.#live(), this.#goalSetIndex(set), point, this.#c.scratch));
    const w = this.#c.f64(this.#c.scratch, 2);
    return { count: w[0], lastStep: w[1] };
  }
  /** Navigation's counts over the whole run, agents that left by exits included: { plans,
   * reroutes, replans, exitChanges, exitReturns, agentsChanged, mostChanges, exited, atExits,
   * arrived, unreachable } (docs/navigation.md, "Diagnostics"). */
  get navCounts() {
    this.#check(this.#c.x.ow_scenario_nav_counts(this.#live(), this.#c.scratch));
    const w = this.#c.f64(this.#c.scratch, 11);
    return {
      plans: w[0], reroutes: w[1], replans: w[2], exitChanges: w[3], exitReturns: w[4], agentsChanged: w[5],
      mostChanges: w[6], exited: w[7], atExits: w[8], arrived: w[9], unreachable: w[10],
    };
  }
  /** { count, lastStep }: agents that left by exits, and the step of the last (-1: none). */
  get exited() {
    this.#check(this.#c.x.ow_scenario_exited(this.#live(), this.#c.scratch));
    const w = this.#c.f64(this.#c.scratch, 2);
    return { count: w[0], lastStep: w[1] };
  }
  /** Adds a named goal set (exits, meeting points) and returns its index (0, 1, ... in the
   * order added): name 1 to 63 characters, unique; points [[x, y], ...], 1 to
   * LIMITS.NAV_GOALS of them, finite, of magnitude below 2^21. exit: an agent heading for the
   * set leaves the simulation once within arriveDistance of its point (0: its radius; else
   * [2^-30, 2^23] m), counted by `exited`. More points than the limit throw ORCA_ERR_LIMIT
   * before any is read; a refusal adds nothing. */
  addGoalSet(name, points, { exit = false, arriveDistance = 0 } = {}) {
    if (typeof name !== 'string') throw argError(`goal set name must be a string, got ${typeof name}`);
    if (!Array.isArray(points)) throw argError('addGoalSet: expected an array of [x, y] points');
    const n = points.length;
    if (n > LIMITS.NAV_GOALS) {
      throw limitError('addGoalSet', 'points', n, `the ${LIMITS.NAV_GOALS} points of a goal set`);
    }
    const arrive = Number(arriveDistance);
    if (!exit && arrive !== 0) throw argError('arriveDistance is for exits: pass exit: true with it');
    if (exit) checkArrive(arrive);
    for (let k = 0; k < n; ++k) vec(points[k], `goal set point ${k}`);
    const buf = this.#c.alloc(16 * n + 8, `a goal set of ${n} points`);
    let p = 0;
    try {
      p = this.#c.cstr(name);
      const w = this.#c.f64(buf + 8, 2 * n);
      points.forEach((q, k) => { w[2 * k] = Number(q[0]); w[2 * k + 1] = Number(q[1]); });
      this.#check(this.#c.x.ow_scenario_add_goal_set(this.#live(), p, buf + 8, n, exit ? 1 : 0, arrive, buf));
      return new Int32Array(this.#c.memory.buffer, buf, 1)[0];
    } finally {
      this.#c.x.ow_free(buf);
      if (p) this.#c.x.ow_free(p);
    }
  }
  /** Makes the goal set (name or index) an exit with arriveDistance (as addGoalSet). */
  setGoalSetExit(set, arriveDistance = 0) {
    this.#check(this.#c.x.ow_scenario_set_goal_set_exit(this.#live(), this.#goalSetIndex(set), Number(arriveDistance)));
  }
  /** The names of the goal sets in index order. */
  get goalSets() {
    const n = this.#c.x.ow_scenario_goal_set_count(this.#live());
    const out = [];
    for (let k = 0; k < n; ++k) out.push(this.#c.str(this.#c.x.ow_scenario_goal_set_get(this.#s.ptr, k, 0, 0, this.#c.scratch, this.#c.scratch + 8)));
    return out;
  }
  /** { index, name, points: [[x, y], ...], exit, arriveDistance } of a goal set (name or index). */
  goalSet(set) {
    const index = this.#goalSetIndex(set);
    const info = this.#c.scratch;
    const name = this.#c.x.ow_scenario_goal_set_get(this.#live(), index, 0, 0, info, info + 8);
    const n = new Int32Array(this.#c.memory.buffer, info, 1)[0];
    if (!name) {
      throw argError(`goal set must be in [0, ${this.#c.x.ow_scenario_goal_set_count(this.#s.ptr)}), got ${index}`);
    }
    const buf = this.#c.alloc(16 * n + 16, `a goal set of ${n} points`);
    try {
      this.#c.x.ow_scenario_goal_set_get(this.#s.ptr, index, buf + 16, n, buf, buf + 8);
      const i = new Int32Array(this.#c.memory.buffer, buf, 2);
      const w = this.#c.f64(buf + 16, 2 * n);
      const points = [];
      for (let k = 0; k < n; ++k) points.push([w[2 * k], w[2 * k + 1]]);
      return { index, name: this.#c.str(name), points, exit: i[1] === 1, arriveDistance: this.#c.f64(buf + 8, 1)[0] };
    } finally {
      this.#c.x.ow_free(buf);
    }
  }
  // The index of a goal set given by name (unknown: ORCA_ERR_ARGUMENT) or index (checked by
  // the library where it is used).
  #goalSetIndex(set) {
    if (typeof set === 'number') {
      if (!Number.isInteger(set) || set < -(2 ** 31) || set >= 2 ** 31) {
        throw argError(`goal set index must be a whole number, got ${set}`);
      }
      return set;
    }
    if (typeof set !== 'string') throw argError(`goal set must be a name or an index, got ${typeof set}`);
    const p = this.#c.cstr(set);
    const k = this.#c.x.ow_scenario_goal_set_find(this.#live(), p);
    this.#c.x.ow_free(p);
    if (k < 0) {
      throw argError(`unknown goal set '${set}' (the scene has ${this.#c.x.ow_scenario_goal_set_count(this.#s.ptr)}; addGoalSet adds one)`);
    }
    return k;
  }
  /** What navigation knows of the agent at index: { navigating, result ('ok', 'no_path',
   * 'start_blocked', 'goal_blocked'; null before its first plan), corner (the corner it heads
   * for, 0 .. corners; corners = its last leg), corners, length (m), plans, reroutes, goal }. */
  agentNav(index) {
    this.#check(this.#c.x.ow_scenario_agent_nav(this.#live(), index, this.#c.scratch, 0, 0));
    const w = this.#c.f64(this.#c.scratch, 9);
    return {
      navigating: w[0] === 1, result: w[5] > 0 ? NAV_RESULTS[w[1]] : null, corner: w[2], corners: w[3],
      length: w[4], plans: w[5], reroutes: w[6], goal: [w[7], w[8]],
    };
  }
  /** The corners of the agent's path: [{ vertex: [x, y], side, enter: [x, y], leave: [x, y] }]:
   * the path meets the circle of the agent's radius round vertex at enter, follows it (side +1:
   * counter-clockwise, the vertex on the walker's left; -1 clockwise) to leave, then goes
   * straight on. [] on a straight path, before a plan and without a path. */
  agentPath(index) {
    const n = this.agentNav(index).corners;
    const buf = this.#c.alloc(CORNER_BYTES * n + 80, `a path of ${n} corners`);
    try {
      this.#check(this.#c.x.ow_scenario_agent_nav(this.#s.ptr, index, buf, buf + 80, n));
      return readCorners(this.#c, buf + 80, n);
    } finally {
      this.#c.x.ow_free(buf);
    }
  }
  /** Waypoints (docs/extensions.md, "Waypoints"): the points [[x, y], ...] the agent at
   * index (with a point goal) visits in order before its goal; [] removes them. It takes the
   * next one when its squared distance to the current one is <= D*D, D = arriveDistance (0:
   * its radius); with loop the goal is followed by the first point again and the agent never
   * counts as arrived. Starts at the first point. A bad value throws (status
   * ORCA_ERR_ARGUMENT, a message naming it); nothing changes. */
  setWaypoints(index, points, { loop = false, arriveDistance = 0 } = {}) {
    if (!Array.isArray(points)) throw argError('setWaypoints: expected an array of [x, y] points');
    const n = points.length;
    if (n > LIMITS.WAYPOINTS) {
      throw limitError('setWaypoints', 'points', n, `the ${LIMITS.WAYPOINTS} waypoints of an agent`);
    }
    const buf = this.#c.alloc(16 * n, `${n} waypoints`);
    try {
      const w = this.#c.f64(buf, 2 * n);
      points.forEach((p, k) => {
        vec(p, `waypoint ${k}`);
        w[2 * k] = Number(p[0]);
        w[2 * k + 1] = Number(p[1]);
      });
      this.#check(this.#c.x.ow_scenario_set_waypoints(this.#live(), index, buf, n, loop ? 1 : 0,
        Number(arriveDistance)));
    } finally {
      this.#c.x.ow_free(buf);
    }
  }
  /** { points, loop, arriveDistance, current } of the agent at index; current is the index of
   * its current target (points.length = the goal). */
  waypoints(index) {
    const info = this.#c.scratch;
    this.#check(this.#c.x.ow_scenario_agent_waypoints(this.#live(), index, 0, 0, info, info + 16));
    const n = this.#c.u32(info, 3)[0];
    const buf = this.#c.alloc(16 * n + 32, `${n} waypoints`);
    try {
      this.#check(this.#c.x.ow_scenario_agent_waypoints(this.#s.ptr, index, buf + 32, n, buf, buf + 16));
      const i = this.#c.u32(buf, 3);
      const w = this.#c.f64(buf + 32, 2 * n);
      const points = [];
      for (let k = 0; k < n; ++k) points.push([w[2 * k], w[2 * k + 1]]);
      return { points, loop: i[1] === 1, arriveDistance: this.#c.f64(buf + 16, 1)[0], current: i[2] };
    } finally {
      this.#c.x.ow_free(buf);
    }
  }
  /** Sets the current target (0 .. points.length; points.length is the goal). */
  setWaypointIndex(index, current) {
    this.#check(this.#c.x.ow_scenario_set_waypoint_index(this.#live(), index, current));
  }
  /** The scenario's state hash (orca_scenario_hash) as 16 hex digits: sim.hash() when no
   * agent has waypoints; the hash `orca run` prints. */
  hash() {
    return BigInt.asUintN(64, this.#c.x.ow_scenario_hash(this.#live())).toString(16).padStart(16, '0');
  }
  get arrivedCount() { return this.#c.x.ow_scenario_arrived_count(this.#live()); }
  get allArrivedStep() { return Number(this.#c.x.ow_scenario_all_arrived_step(this.#live())); }
  get maxAgentOverlap() { return this.#c.x.ow_scenario_max_agent_overlap(this.#live()); }
  get maxWallOverlap() { return this.#c.x.ow_scenario_max_wall_overlap(this.#live()); }
  get fallbackTotal() { return Number(this.#c.x.ow_scenario_fallback_total(this.#live())); }
  set recording(on) { this.#check(this.#c.x.ow_scenario_set_recording(this.#live(), on ? 1 : 0)); }
  /** The scene as the text of a scene file (docs/scene-format.md), as `orca scene` writes
   * one: name, dt, seed, options, goal sets, walls, and every agent's position, velocity,
   * parameters, goal, waypoints and avoidance settings, numbers with 17 digits (they read
   * back as the same bits); comment (optional) as a header comment line. Written before the
   * first step, orca.readScene (or `orca run`) gives back the same scene, to the same hashes;
   * written later it holds where the agents are, and a run of it starts afresh there (a step
   * count of 0, waypoints from the first). */
  toSceneFile(comment) {
    const c = this.#c;
    const p = comment === undefined ? 0 : c.cstr(comment);
    try {
      const size = c.scratch + 128;
      let st = c.x.ow_scene_file_write_text(this.#live(), p, 0, 0, size);
      if (st !== 0) c.fail(st, c.str(c.x.ow_scene_file_last_error(0)));
      const n = c.u32(size, 1)[0];
      const buf = c.alloc(n + 1, `a scene file of ${n} bytes`);
      try {
        st = c.x.ow_scene_file_write_text(this.#s.ptr, p, buf, n + 1, size);
        if (st !== 0) c.fail(st, c.str(c.x.ow_scene_file_last_error(0)));
        return c.text.decode(new Uint8Array(c.memory.buffer, buf, n));
      } finally {
        c.x.ow_free(buf);
      }
    } finally {
      if (p) c.x.ow_free(p);
    }
  }
  /** The whole scenario as a snapshot (Uint8Array, a copy): its simulation, goals, waypoints,
   * navigation state, goal sets, exits and record (docs/scenarios.md, "Snapshots"; the same
   * bytes as natively). */
  save() {
    const s = this.#c.scratch + 128;
    this.#check(this.#c.x.ow_scenario_save(this.#live(), 0, 0, s));
    const size = this.#c.u32(s, 1)[0];
    const p = this.#c.alloc(size, `a scenario snapshot of ${size} bytes`);
    try {
      this.#check(this.#c.x.ow_scenario_save(this.#s.ptr, p, size, s));
      return new Uint8Array(this.#c.memory.buffer, p, size).slice();
    } finally {
      this.#c.x.ow_free(p);
    }
  }
  /** Replaces the whole state (the simulation's included) with a snapshot from save() of
   * this or any scene (here or natively); stepping on gives the same bits as the saved scene.
   * Damaged bytes throw ORCA_ERR_FORMAT with a message naming the field, and change nothing. */
  load(bytes) {
    if (!(bytes instanceof Uint8Array)) {
      throw new OrcaError('ORCA_ERR_ARGUMENT', 'load: expected a Uint8Array scenario snapshot');
    }
    const p = this.#c.alloc(bytes.length, `a scenario snapshot of ${bytes.length} bytes`);
    try {
      new Uint8Array(this.#c.memory.buffer, p, bytes.length).set(bytes);
      this.#check(this.#c.x.ow_scenario_load(this.#live(), p, bytes.length));
    } finally {
      this.#c.x.ow_free(p);
    }
  }
}
