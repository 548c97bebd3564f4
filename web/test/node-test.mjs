// SPDX-License-Identifier: MIT
// web/orca.mjs under Node.js, both modules (scalar and SIMD128): every golden scene of
// test/golden/determinism.txt reaches its hash; the SIMD128 module's kernels on and off give
// the same hashes; the JavaScript API (agents, segments, bulk preferred velocities, typed-array
// views, save/load, errors with the library's messages); the avoidance settings and diagnostics
// (issue 16): the same hash and diagnostic totals as `orca run` on a scene file ($ORCA_CLI, else
// build/release/cli/orca; without it that comparison is skipped and says so), and a scan over
// every agent; navigation (docs/navigation.md): a room whose door faces away from the goals
// (the agents arrive only with it), the hash and exits of `orca run` on the same scene file,
// agentNav and agentPath against the path query, a closed form, and the refusals; scene files
// (orca.readScene, docs/scene-format.md): the defaults scene and a validation scene reach their
// golden hashes, examples/*.txt the hash of `orca run` on the same file, written scenes read
// back as the same scene, and bad files throw the messages `orca run` prints.
//   node web/test/node-test.mjs
// Prints "PASS name" / "FAIL name: why" lines and "web-node: N passed, N failed".
import { readFile, readdir, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOrca, simdSupported, GOAL, LIMITS, parseHandle, OrcaError, STATUS, Sim, Scene, Nav, Orca } from '../orca.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
let passed = 0;
let failed = 0;
function test(name, fn) {
  try {
    const note = fn();
    ++passed;
    console.log(`PASS ${name}${note ? ` (${note})` : ''}`);
  } catch (e) {
    ++failed;
    console.log(`FAIL ${name}: ${e && e.message ? e.message : e}`);
  }
}
function check(cond, msg) { if (!cond) throw new Error(msg); }
function throwsWith(fn, pattern, status) {
  try {
    fn();
  } catch (e) {
    check(pattern.test(e.message), `message "${e.message}" does not match ${pattern}`);
    if (status) check(e.status === status, `status ${e.status}, expected ${status}`);
    return e.message;
  }
  throw new Error(`no error thrown (expected ${pattern})`);
}

const golden = [];
for (const line of (await readFile(join(ROOT, 'test/golden/determinism.txt'), 'utf8')).split('\n')) {
  const m = /^(\w+) agents=(\d+) steps=(\d+) hash=([0-9a-f]{16})$/.exec(line.trim());
  if (m) golden.push({ scene: m[1], agents: +m[2], steps: +m[3], hash: m[4] });
}

// One set of defaults (issue 27, item 10): the scene with every parameter at its default and
// the hash the C API, `orca run` and Python reach (test/golden/defaults.txt).
const DEFAULTS_SCENE = (await readFile(join(ROOT, 'test/golden/defaults-scene.txt'), 'utf8'))
  .split('\n').filter((l) => l.startsWith('agent ')).map((l) => l.split(/\s+/).slice(1).map(Number));
const DEFAULTS_GOLDEN = /^defaults-scene\.txt steps=(\d+) hash=([0-9a-f]{16})/
  .exec(await readFile(join(ROOT, 'test/golden/defaults.txt'), 'utf8'));

// Two simulations with the same content (issue 27, item 8): a handle of one names a live
// object of the same slot and generation in the other. 5 agents (slot 1 reused), 3 segments,
// one loop.
function filled(orca) {
  const sim = orca.createSim();
  const agents = [];
  for (let i = 0; i < 5; ++i) agents.push(sim.addAgent({ position: [-8 + 4 * i, 0.5 * (i % 2)], preferredVelocity: [1, 0] }));
  sim.removeAgent(agents[1]);
  agents[1] = sim.addAgent({ position: [0, 20] });
  const segs = sim.addSegments([[-20, -8], [-20, 8], [5, 30]], [[20, -8], [20, 8], [5, 30]]);
  const loop = sim.addBoundary([[-50, -50], [50, -50], [50, 50], [-50, 50]]);
  return { sim, agents, segs, loop };
}
// The whole observable state (a refusal must leave it as it was).
function stateOf(sim) {
  return `${sim.hash()} ${sim.agentCount} ${sim.segmentCount} ${sim.boundaryCount} ${sim.save().join()}`;
}

test('SIMD128 is detected', () => { check(simdSupported(), 'Node 20 has SIMD128'); });
{
  // loadOrca() without options: the modules next to orca.mjs (file: URLs under Node)
  const auto = await loadOrca();
  const scalar = await loadOrca({ simd: false });
  test('loadOrca() picks SIMD128, { simd: false } the scalar module', () => {
    check(auto.simd === true && scalar.simd === false, `auto ${auto.simd}, scalar ${scalar.simd}`);
  });
}

let patrolHash = null; // the waypoint patrol's hash, the same in both modules

// --- avoidance extensions and diagnostics (issue 16) ---------------------------------------
// A crossing crowd with priorities, layers, masks and locked agents, as a scene file for
// `orca run` (the C reference: $ORCA_CLI, else build/release/cli/orca) and built here.
const CROWD = [];
for (let i = 0; i < 36; ++i) {
  const x = ((i * 37) % 29) - 14 + 0.125 * (i % 5), y = ((i * 53) % 31) - 15 + 0.375 * (i % 3);
  CROWD.push({
    position: [x, y], target: [-x, -y], radius: 0.4 + 0.05 * (i % 7),
    priority: [1, 3, 0.25, 1000, 2 ** -30, 2 ** 30][i % 6],
    layers: [1, 2, 3, 1][i % 4], mask: [0xFFFFFFFF, 1, 2, 0xFFFFFFFF, 0][i % 5],
    locked: i % 9 === 4, velocity: i % 9 === 4 ? [0.25, -0.125] : [0, 0],
  });
}
const CROWD_STEPS = 120;
let crowdRef = null; // { hash, diagnostics } from orca run, or null without the orca command
{
  const cli = process.env.ORCA_CLI || join(ROOT, 'build/release/cli/orca');
  if (existsSync(cli)) {
    const dir = await mkdtemp(join(tmpdir(), 'orca-node-'));
    const lines = ['orca-scene 1', 'dt 0.25', 'seed 5', 'segment -4 -1 4 -1'];
    for (const a of CROWD) {
      lines.push(`agent ${a.position[0]} ${a.position[1]} goal ${a.target[0]} ${a.target[1]} ` +
        `radius=${a.radius} preferred_speed=1.25 velocity=${a.velocity[0]},${a.velocity[1]} ` +
        `priority=${a.priority} layers=${a.layers} mask=0x${a.mask.toString(16)} locked=${a.locked ? 1 : 0}`);
    }
    const file = join(dir, 'crowd.txt');
    await writeFile(file, lines.join('\n') + '\n');
    crowdRef = JSON.parse(execFileSync(cli, ['run', file, '--steps', String(CROWD_STEPS), '--diagnostics', '--json'],
      { encoding: 'utf8' }));
    await rm(dir, { recursive: true });
  } else {
    console.log(`SKIP avoidance: the same hash as orca run (no orca command at ${cli}; set ORCA_CLI)`);
  }
}
// --- navigation (docs/navigation.md) ------------------------------------------------------
// A 10 x 10 m room open only on its west side (a door from y 4 to 6), the goals east of it:
// three point goals and one agent of an exit goal set. `orca run` on the same scene file is
// the C reference (as the crowd's).
const ROOM = [[0, 4], [0, 0], [10, 0], [10, 10], [0, 10], [0, 6]];
const ROOM_AGENTS = [[[8.5, 3], [14, 3]], [[8.5, 5], [15, 5]], [[8.5, 7], [16, 7]]];
const ROOM_STEPS = 400;
let roomRef = null;
{
  const cli = process.env.ORCA_CLI || join(ROOT, 'build/release/cli/orca');
  if (existsSync(cli)) {
    const dir = await mkdtemp(join(tmpdir(), 'orca-node-'));
    const lines = ['orca-scene 1', 'dt 0.25', 'seed 3', 'navigation on', `polyline ${ROOM.flat().join(' ')}`,
      'goalset out 15 2 15 8 exit arrive=0.5'];
    for (const [p, g] of ROOM_AGENTS) lines.push(`agent ${p.join(' ')} goal ${g.join(' ')} radius=0.4 preferred_speed=1.2 max_speed=1.5`);
    lines.push('agent 7 5 goalset out radius=0.4');
    const file = join(dir, 'room.txt');
    await writeFile(file, lines.join('\n') + '\n');
    roomRef = JSON.parse(execFileSync(cli, ['run', file, '--steps', String(ROOM_STEPS), '--json'], { encoding: 'utf8' }));
    await rm(dir, { recursive: true });
  } else {
    console.log(`SKIP navigation: the same hash as orca run (no orca command at ${cli}; set ORCA_CLI)`);
  }
}
// --- scene files (orca.readScene) --------------------------------------------------------
// Scene files with recorded hashes: the defaults scene (test/golden/defaults.txt) and a
// validation run (test/golden/validation.txt: `orca run FILE --steps N`); examples/*.txt
// against `orca run FILE --steps 60 --json` (the C reference, as the crowd's).
const SCENE_GOLDEN = [
  { file: 'test/golden/defaults-scene.txt', steps: +DEFAULTS_GOLDEN[1], hash: DEFAULTS_GOLDEN[2] },
];
{
  const v = /^rimea04-single-1-short\.txt (\d+) ([0-9a-f]{16})$/m
    .exec(await readFile(join(ROOT, 'test/golden/validation.txt'), 'utf8'));
  SCENE_GOLDEN.push({ file: 'examples/validation/rimea04-single-1-short.txt', steps: +v[1], hash: v[2] });
}
const EXAMPLE_STEPS = 60;
const EXAMPLES = (await readdir(join(ROOT, 'examples'))).filter((f) => /^[a-z][a-z0-9_-]*\.txt$/.test(f)).sort();
let exampleRefs = null; // file -> the hash of orca run, or null without the orca command
{
  const cli = process.env.ORCA_CLI || join(ROOT, 'build/release/cli/orca');
  if (existsSync(cli)) {
    exampleRefs = {};
    for (const f of EXAMPLES) {
      exampleRefs[f] = JSON.parse(execFileSync(cli, ['run', join(ROOT, 'examples', f), '--steps',
        String(EXAMPLE_STEPS), '--json'], { encoding: 'utf8' })).hash;
    }
  } else {
    console.log(`SKIP scene files: examples/*.txt as orca run (no orca command at ${cli}; set ORCA_CLI)`);
  }
}

function roomScene(orca, navigation, exitAgent = true) {
  const sc = orca.createScene('custom', { dt: 0.25, seed: 3 });
  for (let k = 0; k + 1 < ROOM.length; ++k) sc.sim.addSegment(ROOM[k], ROOM[k + 1]);
  for (const [p, g] of ROOM_AGENTS) sc.addAgent({ position: p, radius: 0.4, maxSpeed: 1.5 }, { target: g, speed: 1.2 });
  sc.setNavigation(navigation);
  if (exitAgent) {
    sc.addGoalSet('out', [[15, 2], [15, 8]], { exit: true, arriveDistance: 0.5 });
    sc.addAgent({ position: [7, 5], radius: 0.4 }, { goalSet: 'out' });
  }
  return sc;
}
let roomHash = null; // the same in both modules

let crowdHash = null; // the crowd's hash, the same in both modules
function crowdScene(orca, how) {
  const sc = orca.createScene('custom', { dt: 0.25, seed: 5 });
  sc.sim.addSegment([-4, -1], [4, -1]);
  for (const a of CROWD) {
    const def = { position: a.position, radius: a.radius, velocity: a.velocity };
    const goal = { kind: GOAL.POINT, target: a.target, speed: 1.25 };
    if (how === 'fields') {
      sc.addAgent({ ...def, priority: a.priority, layers: a.layers, mask: a.mask, locked: a.locked }, goal);
    } else {
      const id = sc.addAgent(def, goal);
      if (how === 'setters') {
        sc.sim.setPriority(id, a.priority);
        sc.sim.setLayers(id, a.layers, a.mask);
        sc.sim.setLocked(id, a.locked);
      } else {
        sc.sim.setAvoidance(id, { priority: a.priority, layers: a.layers, mask: a.mask, locked: a.locked });
      }
    }
  }
  return sc;
}
for (const [label, file] of [['scalar', 'orca.wasm'], ['SIMD128', 'orca-simd.wasm']]) {
  // ow_malloc made to fail on demand (failMalloc): loadOrca's wrapExports hook, the one way
  // in to the module's exports
  let failMalloc = false;
  const orca = await loadOrca({ wasm: await readFile(join(ROOT, 'web/wasm', file)),
    wrapExports: (x) => ({ ...x, ow_malloc: (n) => (failMalloc ? 0 : x.ow_malloc(n)) }) });
  test(`${label}: module kind`, () => {
    check(orca.simd === (label === 'SIMD128'), `simd ${orca.simd}`);
    const sim = orca.createSim();
    check(sim.vectorKernels === orca.simd, `vector kernels ${sim.vectorKernels}`);
    sim.destroy();
    return `orca ${orca.version}`;
  });
  for (const g of golden) {
    for (const vector of orca.simd ? [true, false] : [false]) {
      test(`${label}: ${g.scene} ${g.agents} agents, ${g.steps} steps${orca.simd && !vector ? ' (kernels off)' : ''}`, () => {
        const sc = orca.createScene(g.scene, { agents: g.agents, seed: 1 });
        sc.sim.vectorKernels = vector;
        for (let i = 0; i < g.steps; ++i) sc.step();
        const h = sc.sim.hash();
        sc.destroy();
        check(h === g.hash, `hash ${h}, golden ${g.hash}`);
        return h;
      });
    }
  }

  // --- scene files ---------------------------------------------------------------------------
  for (const g of SCENE_GOLDEN) {
    test(`${label}: readScene: ${g.file}, ${g.steps} steps: the golden hash`, () => {
      const sc = orca.readScene(readFileSync(join(ROOT, g.file), 'utf8'), { name: g.file });
      for (let i = 0; i < g.steps; ++i) sc.step();
      const h = sc.hash();
      sc.destroy();
      check(h === g.hash, `hash ${h}, golden ${g.hash}`);
      return h;
    });
  }
  if (exampleRefs) {
    test(`${label}: readScene: examples/*.txt, ${EXAMPLE_STEPS} steps: the hashes of orca run`, () => {
      for (const f of EXAMPLES) {
        const sc = orca.readScene(readFileSync(join(ROOT, 'examples', f))); // the bytes
        for (let i = 0; i < EXAMPLE_STEPS; ++i) sc.step();
        const h = sc.hash();
        sc.destroy();
        check(h === exampleRefs[f], `${f}: hash ${h}, orca run ${exampleRefs[f]}`);
      }
      return EXAMPLES.join(' ');
    });
  }
  test(`${label}: readScene: dt and seed options; toSceneFile reads back as the same scene`, () => {
    const text = readFileSync(join(ROOT, 'examples/patrol.txt'), 'utf8');
    const a = orca.readScene(text);
    check(a.name === 'patrol' && a.dt === 0.25 && a.seed === 1n && a.sim.agentCount === 8, 'the file\'s values');
    const b = orca.readScene(text, { dt: 0.125, seed: 2n ** 64n - 1n });
    check(b.dt === 0.125 && b.seed === 2n ** 64n - 1n, `options: dt ${b.dt}, seed ${b.seed}`);
    b.destroy();
    const written = a.toSceneFile('written by node-test');
    check(written.startsWith('# orca scene file (format: docs/scene-format.md)\n# written by node-test\n'), written.slice(0, 80));
    const c = orca.readScene(written, { name: 'written.txt' });
    check(c.toSceneFile('written by node-test') === written, 'the same text again');
    check(JSON.stringify(c.waypoints(3)) === JSON.stringify(a.waypoints(3)), 'waypoints');
    for (let i = 0; i < 50; ++i) {
      a.step();
      c.step();
    }
    const h = a.hash();
    check(c.hash() === h, `hash ${c.hash()}, the original's ${h}`);
    a.destroy();
    c.destroy();
    return h;
  });
  test(`${label}: readScene: bad files throw the messages of orca run`, () => {
    throwsWith(() => orca.readScene('agent 0 0\nagent 1 1 radius=-1\n'),
      /^<scene>:2: radius must be > 0, got '-1'$/, 'ORCA_ERR_FORMAT');
    throwsWith(() => orca.readScene('agnet 0 0', { name: 'x.txt' }), /^x\.txt:1: unknown statement 'agnet'/, 'ORCA_ERR_FORMAT');
    throwsWith(() => orca.readScene(''), /^<scene>: the file is empty \(add 'agent X Y \.\.\.' lines\)$/, 'ORCA_ERR_FORMAT');
    throwsWith(() => orca.readScene(new Uint8Array([0x61, 0x67, 0x65, 0x6e, 0x74, 0x20, 0x30, 0x20, 0x30, 0x0a, 0])),
      /^<scene>:2: NUL byte in the line/, 'ORCA_ERR_FORMAT');
    throwsWith(() => orca.readScene('grid 32768 32769 0 0 1 1'), /more than the limit of 2\^30/, 'ORCA_ERR_LIMIT');
    throwsWith(() => orca.readScene('name caf\u00e9 \u0001\nagent 0 0'), /^<scene>:1: name: control character U\+0001 at byte 7/, 'ORCA_ERR_FORMAT');
    // what only the simulation checks: the line of the agent outside the walkable area
    throwsWith(() => orca.readScene('boundary 0 0 10 0 10 10 0 10\nagent 5 5\nagent 30 5\n', { name: 'w.txt' }),
      /^w\.txt:3: agent 1: .*outside the walkable area/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => orca.readScene('agent 0 0', { dt: -1 }), /^<scene>: creating the scenario \(orca_scenario_create\): .*\(ORCA_ERR_ARGUMENT\)$/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => orca.readScene('agent 0 0', { seed: -1 }), /seed must be a whole number/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => orca.readScene(42), /expected the text of a scene file/, 'ORCA_ERR_ARGUMENT');
    failMalloc = true;
    try {
      throwsWith(() => orca.readScene('agent 0 0'), /out of memory/, 'ORCA_ERR_MEMORY');
    } finally {
      failMalloc = false;
    }
    return 'ok';
  });

  // --- walkable-area boundaries ------------------------------------------------------------
  test(`${label}: walkable-area boundaries`, () => {
    const sim = orca.createSim();
    const room = [[0, 0], [20, 0], [20, 14], [0, 14]];
    const pillar = [[8, 5], [8, 9], [12, 9], [12, 5]];
    const ids = [];
    for (let k = 0; k < 8; ++k) ids.push(sim.addAgent({ position: [2 + k, 2 + (k % 2) * 1.5], radius: 0.5, obstacleTimeHorizon: 2 }));
    const r = sim.addBoundary(room);
    const h0 = sim.hash();
    let refused = 0;
    for (const bad of [[[0, 0], [1, 1]], [[0, 0], [1, 0], [0, 0]], [[0, 0], [1, 1], [2, 2]], [[0, 0], [1, 0], [1, 3e6]]]) {
      try { sim.addBoundary(bad); } catch (e) { refused += e.status === 'ORCA_ERR_ARGUMENT'; }
    }
    check(refused === 4 && sim.hash() === h0 && sim.boundaryCount === 1, `refusals ${refused}`);
    // an agent whose disc does not fit in the walkable area is refused, naming it and the loop
    throwsWith(() => sim.addAgent({ position: [30, 7], radius: 0.5 }), /agent 8 at \(30, 7\) is outside the walkable area/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sim.addAgent({ position: [19.7, 7], radius: 0.5 }), /is 0.30000000000000071 from boundary loop 0/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sim.addBoundary([[1.5, 1.5], [1.5, 2.5], [2.5, 2.5], [2.5, 1.5]]), /would leave agent 0 \(slot 0\) at \(2, 2\)/, 'ORCA_ERR_ARGUMENT');
    check(sim.hash() === h0, 'refusals change nothing');
    const p = sim.addBoundary(pillar);
    const got = sim.boundaries();
    check(got.length === 2 && got[1].points[2][0] === 12 && got[0].id === r && got[1].id === p, 'boundaries()');
    // an independent even-odd ray test: every agent inside the room and outside the pillar
    const cross = (loop, x, y) => {
      let c = 0;
      for (let k = 0; k < loop.length; ++k) {
        const [ax, ay] = loop[k], [bx, by] = loop[(k + 1) % loop.length];
        if ((ay > y) !== (by > y) && ax + (y - ay) * (bx - ax) / (by - ay) > x) ++c;
      }
      return c;
    };
    for (let s = 0; s < 200; ++s) {
      const pos = sim.positions();
      const v = [];
      for (let i = 0; i < 8; ++i) {
        const [gx, gy] = i % 2 ? [25, 10] : [10, -5]; // beyond the walls, through the pillar
        const d = Math.hypot(gx - pos[2 * i], gy - pos[2 * i + 1]);
        v.push((gx - pos[2 * i]) / d * 2, (gy - pos[2 * i + 1]) / d * 2);
      }
      sim.setPreferredVelocities(v);
      sim.step(0.25);
      const q = sim.positions();
      for (let i = 0; i < 8; ++i) {
        check(cross(room, q[2 * i], q[2 * i + 1]) % 2 === 1 && cross(pillar, q[2 * i], q[2 * i + 1]) % 2 === 0,
          `agent ${i} left the area at step ${s}`);
      }
      const m = sim.measureBoundary();
      check(m.outside === 0 && m.deepest < 1e-9, `measure ${m.deepest} ${m.outside}`);
    }
    sim.removeBoundary(p);
    sim.removeBoundary(r);
    check(sim.boundaryCount === 0, 'removed');
    sim.destroy();
  });
  // --- end of walkable-area boundaries ----------------------------------------------------

  test(`${label}: agents, segments, bulk preferred velocities, views`, () => {
    const sim = orca.createSim();
    const a = sim.addAgent({ position: [-10, 0], maxSpeed: 2 });
    const b = sim.addAgent({ position: [10, 0.5], maxSpeed: 2 });
    const c = sim.addAgent({ position: [0, 20] });
    sim.removeAgent(c);
    check(sim.agentCount === 2 && sim.agentIndex(c) === -1, 'removed agent still there');
    const w = sim.addSegment([0, -3], [0, 3]);
    check(sim.segmentCount === 1, 'segment');
    sim.removeSegment(w);
    check(sim.segmentCount === 0, 'segment removed');
    for (let k = 0; k < 40; ++k) {
      sim.setPreferredVelocities([1.5, 0, -1.5, 0]);
      sim.step(0.25);
    }
    const p = sim.positions();
    const v = sim.velocities();
    check(p instanceof Float64Array && p.length === 4 && v.length === 4, 'views');
    check(p === sim.positions() && v === sim.velocities(), 'the same views while current');
    const d = Math.hypot(p[0] - p[2], p[1] - p[3]);
    check(p[0] > -10 && p[2] < 10, `agents did not move: ${p}`);
    check(d >= 3 - 1e-9, `agents overlap: distance ${d}`);
    check(sim.getAgent(a).radius === 1.5 && sim.agentAt(1) === b, 'getAgent/agentAt');
    sim.setAgent(b, { radius: 1 });
    check(sim.getAgent(b).radius === 1 && sim.getAgent(b).maxSpeed === 2, 'setAgent keeps other fields');
    check(sim.stepCount === 40, `step count ${sim.stepCount}`);
    sim.destroy();
    return `distance ${d.toFixed(4)} after 40 steps`;
  });

  test(`${label}: batch calls (addSegments, removeSegments, removeAgents) equal one at a time`, () => {
    const one = orca.createSim();
    const many = orca.createSim();
    const agents = [[], []];
    for (let i = 0; i < 60; ++i) {
      const def = { position: [(i % 8) * 3 - 10, Math.floor(i / 8) * 3 - 10], preferredVelocity: [1, 0.25] };
      agents[0].push(one.addAgent(def));
      agents[1].push(many.addAgent(def));
    }
    const a = [], b = [];
    for (let k = 0; k < 30; ++k) {
      a.push([k - 15, (k * 7) % 11 - 5]);
      b.push([k - 14, (k * 5) % 13 - 6]);
    }
    const s0 = a.map((p, k) => one.addSegment(p, b[k]));
    const s1 = many.addSegments(a, b);
    // the same slots and generations; each simulation's handles carry its own identity
    const parts = (h) => { const q = parseHandle(h); return `${q.kind}:${q.slot}:${q.generation}`; };
    check(s0.map(parts).join() === s1.map(parts).join(), 'handles differ');
    check(s1.every((h) => parseHandle(h).sim === many.id) && one.id !== many.id, 'identities');
    check(one.hash() === many.hash(), 'addSegments hash');
    const pick = [17, 3, 29, 0, 11];
    for (const k of pick) one.removeSegment(s0[k]);
    many.removeSegments(pick.map((k) => s1[k]));
    const apick = [5, 59, 22];
    for (const k of apick) one.removeAgent(agents[0][k]);
    many.removeAgents(apick.map((k) => agents[1][k]));
    check(many.segmentCount === 25 && many.agentCount === 57, 'counts');
    const list = a.map((p, k) => k).filter((k) => !pick.includes(k));
    const got = many.segments(); // with the removals pending: index order as a list gives
    check(got.every((g, i) => g.a[0] === a[list[i]][0] && g.id === s1[list[i]]), 'index order');
    for (let i = 0; i < 10; ++i) { one.step(0.25); many.step(0.25); }
    check(one.hash() === many.hash(), `${one.hash()} != ${many.hash()} after the removals`);
    // refusals: nothing changes, the entry is named
    const h = many.hash();
    throwsWith(() => many.removeSegments([s1[1], s1[3]]), /ids\[1\]: segment handle .* is stale/, 'ORCA_ERR_STALE');
    throwsWith(() => many.removeSegments([s1[1], s1[2], s1[1]]), /ids\[0\] and ids\[2\]/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => many.removeAgents([agents[1][0], agents[1][5]]), /ids\[1\]: agent handle/, 'ORCA_ERR_STALE');
    throwsWith(() => many.removeAgents([agents[1][0], agents[1][0]]), /ids\[0\] and ids\[1\]/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => many.removeSegments(5), /array of handles/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => many.removeSegments([s1[1], null]), /ids\[1\] is not a segment handle: null/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => many.removeSegments([s1[2], agents[1][7]]), /ids\[1\] is not a segment handle: 'agent:/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => many.addSegments([[0, 0]], []), /one length/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => many.addSegments([[0, 0], [1]], [[0, 1], [1, 1]]), /a\[1\] must be a pair/, 'ORCA_ERR_ARGUMENT');
    for (const bad of [2 ** 21, -(2 ** 21), 1e300, -Number.MAX_VALUE, Infinity, NaN]) {
      const m = throwsWith(() => many.addSegments([[0, 0], [1, 1]], [[0, 1], [1, bad]]),
        /b\[1\]\.y must be finite with magnitude below 2\^21, got .*; nothing was added/, 'ORCA_ERR_ARGUMENT');
      check(m.includes(Number.isNaN(bad) ? 'nan' : (Number.isFinite(bad) ? '' : 'inf')), m);
    }
    check(many.addSegments([], []).length === 0, 'an empty batch');
    many.removeSegments([]);
    many.removeAgents([]);
    check(many.hash() === h && many.segmentCount === 25 && many.agentCount === 57, 'a refusal changed the state');
    const top = 2 ** 21 - 2 ** -32; // the largest coordinates below the limit, and the tiniest
    const e = many.addSegments([[top, -top], [5e-324, -0]], [[-top, 0], [0, -5e-324]]);
    const all = many.segments();
    check(all[25].a[0] === top && all[26].a[0] === 5e-324 && Object.is(all[26].a[1], -0) &&
          all[26].id === e[1], 'edges stored as given');
    one.destroy();
    many.destroy();
    return '30 segments, 5 + 3 removed in batches';
  });

  test(`${label}: coincident agents: the separation option parts a fused pair (state: hash, save/load)`, () => {
    const pair = (on) => {
      const sc = orca.createScene('custom', { dt: 0.25, seed: 3 });
      sc.sim.setSeparation(on);
      const def = { position: [0, 0], radius: 0.5, maxSpeed: 1.5, neighborDist: 5, timeHorizon: 2, obstacleTimeHorizon: 2 };
      sc.addAgent(def, { kind: GOAL.POINT, target: [-10, 3], speed: 1.3 });
      sc.addAgent(def, { kind: GOAL.POINT, target: [10, -4], speed: 1.3 });
      return sc;
    };
    const plain = pair(false);
    const sep = pair(true);
    check(!plain.sim.separation && !plain.sim.separationActive, 'off at creation');
    check(sep.sim.separation && sep.sim.separationActive, 'on when set');
    check(plain.sim.hash() !== sep.sim.hash(), 'the option is in the hash');
    const snap = sep.sim.save();
    for (let i = 0; i < 200; ++i) { plain.step(); sep.step(); }
    const p = plain.sim.positions(), q = sep.sim.positions();
    check(p[0] === p[2] && p[1] === p[3], 'plain: the pair stays fused');
    const d0 = Math.hypot(q[0] + 10, q[1] - 3), d1 = Math.hypot(q[2] - 10, q[3] + 4);
    check(d0 <= 0.5 && d1 <= 0.5, `separated: distances to the goals ${d0}, ${d1}`);
    const h = sep.sim.hash();
    sep.sim.load(snap);
    check(sep.sim.separation, 'load restores the option');
    for (let i = 0; i < 200; ++i) sep.step();
    check(sep.sim.hash() === h, 'save + load = one run');
    plain.destroy();
    sep.destroy();
    return `hash ${h}`;
  });

  test(`${label}: density-dependent speed: a dense block is slower; state (hash, save/load); refusals`, () => {
    const block = (params) => {
      const sim = orca.createSim();
      for (let i = 0; i < 6; ++i) {
        for (let j = 0; j < 6; ++j) {
          sim.addAgent({ position: [i * 0.5, j * 0.5], radius: 0.2, neighborDist: 2, maxNeighbors: 64,
            timeHorizon: 2, preferredVelocity: [1.34, 0] });
        }
      }
      if (params !== undefined) sim.setDensitySpeed(params);
      return sim;
    };
    const plain = block(), dens = block({});
    check(plain.densitySpeed === null, 'off at creation');
    const d = dens.densitySpeed;
    check(d && d.radius === 2 && d.gamma === 1.913 && d.maxDensity === 5.4, `defaults ${JSON.stringify(d)}`);
    check(dens.separationActive, 'the step is beyond the plain bits');
    check(plain.hash() !== dens.hash(), 'on is in the hash');
    const snap = dens.save();
    const x0 = Array.from(dens.positions());
    for (let i = 0; i < 40; ++i) { plain.step(0.1); dens.step(0.1); }
    const adv = (sim) => { const p = sim.positions(); let s = 0; for (let k = 0; k < 36; ++k) s += p[2 * k] - x0[2 * k]; return s / 36; };
    check(adv(dens) < 0.6 * adv(plain), `dense block slower: ${adv(dens)} vs ${adv(plain)}`);
    const h = dens.hash();
    const other = orca.createSim();
    other.load(snap);
    check(other.densitySpeed && other.densitySpeed.radius === 2, 'load restores it');
    for (let i = 0; i < 40; ++i) other.step(0.1);
    check(other.hash() === h, 'save + load = one run');
    dens.setDensitySpeed({ radius: 1.5 });
    check(dens.densitySpeed.radius === 1.5 && dens.densitySpeed.gamma === 1.913, 'a field not given is kept');
    const before = dens.hash();
    for (const [k, v] of [['radius', NaN], ['gamma', 0], ['maxDensity', -1], ['radius', Infinity], ['gamma', 5e-324], ['maxDensity', 1e300]]) {
      let msg = '';
      try { dens.setDensitySpeed({ [k]: v }); } catch (e) { msg = e.message; }
      check(msg.includes(k === 'maxDensity' ? 'max_density' : k), `${k} = ${v} refused: '${msg}'`);
      check(dens.hash() === before && dens.densitySpeed.radius === 1.5, `${k} = ${v}: nothing changed`);
    }
    let unknown = '';
    try { dens.setDensitySpeed({ speed: 1 }); } catch (e) { unknown = e.message; }
    check(unknown.includes("unknown density speed parameter 'speed'"), `unknown key: '${unknown}'`);
    dens.setDensitySpeed(null);
    check(dens.densitySpeed === null, 'null turns it off');
    // the scene and hash of test/test_density.c's pinned_hash
    const pinned = orca.createSim();
    for (let i = 0; i < 100; ++i) {
      pinned.addAgent({ position: [(i % 10) * 0.5, Math.floor(i / 10) * 0.5], radius: 0.2, neighborDist: 2,
        maxNeighbors: 64, timeHorizon: 2, obstacleTimeHorizon: 2, preferredVelocity: [1.34, 0.05 * (i % 3)] });
    }
    pinned.setDensitySpeed({});
    for (let i = 0; i < 40; ++i) pinned.step(0.1);
    check(pinned.hash() === 'f011970776cc6b30', `pinned hash ${pinned.hash()} = f011970776cc6b30 (native)`);
    pinned.destroy();
    plain.destroy();
    dens.destroy();
    other.destroy();
    return `hash ${h}`;
  });

  test(`${label}: pedestrian model: pinned hash, streams, state, refusals, the preset`, () => {
    // the scene and hash of test/test_pedestrian.c's pinned_hash
    const sim = orca.createSim();
    for (let i = 0; i < 100; ++i) {
      const left = i % 10 < 5;
      sim.addAgent({ position: [(i % 10) * 0.6, Math.floor(i / 10) * 0.6], radius: 0.18, neighborDist: 2,
        maxNeighbors: 32, timeHorizon: 2, obstacleTimeHorizon: 0.5,
        preferredVelocity: [left ? 1.34 : -1.34, 0.05 * (i % 3)], stream: i % 7 === 0 ? -1 : left ? 0 : 1 });
    }
    check(sim.pedestrian === null && sim.getStream(sim.agentAt(5)) === 1, 'off; streams set');
    const off = sim.hash();
    sim.setPedestrian({});
    check(JSON.stringify(sim.pedestrian) === JSON.stringify(orca.pedestrianDefaults()), 'the defaults');
    check(sim.hash() !== off && sim.separationActive, 'state; separation active');
    const before = sim.hash();
    for (const [k, v] of [['timeGap', 0], ['buffer', -1], ['counterReach', Infinity], ['maxPlanes', 0]]) {
      let msg = '';
      try { sim.setPedestrian({ [k]: v }); } catch (e) { msg = e.message; }
      const name = { timeGap: 'time_gap', buffer: 'buffer', counterReach: 'counter_reach', maxPlanes: 'max_planes' }[k];
      check(msg.includes(name) && sim.hash() === before, `${k} = ${v} refused: '${msg}'`);
    }
    throwsWith(() => sim.setDensitySpeed({}), /pedestrian model/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sim.addAgent({ position: [50, 50], stream: -2 }), /stream/, 'ORCA_ERR_ARGUMENT');
    check(sim.agentCount === 100 && sim.hash() === before, 'refusals change nothing');
    for (let i = 0; i < 40; ++i) sim.step(0.05);
    check(sim.hash() === 'ce7a33481513c27d', `pinned hash ${sim.hash()} = ce7a33481513c27d (native)`);
    const copy = orca.createSim();
    copy.load(sim.save());
    check(copy.hash() === sim.hash() && copy.pedestrian.timeGap === 0.5, 'save and load keep it');
    sim.setDiagnostics(true);
    sim.step(0.05);
    const d = sim.stepDiagnostics();
    check(d.headway > 0 && d.counter > 0, `diagnostics count headway ${d.headway}, counter ${d.counter}`);
    sim.setPedestrian(null);
    check(sim.pedestrian === null, 'null turns it off');
    copy.destroy();
    sim.destroy();
    // the preset in a scene: dt, the agent, the free speed, streams
    const sc = orca.createScene('custom', { pedestrian: true, seed: 9 });
    check(sc.dt === 0.05 && sc.pedestrian !== null, `preset scene dt ${sc.dt}`);
    sc.addGoalSet('west', [[-20, 0]]);
    const a = sc.addAgent({ position: [0, 0] }, { goalSet: 'west' });
    const b = sc.addAgent({ position: [1, 0], radius: 0.2, stream: 4 }, { target: [5, 5], speed: 1.1 });
    check(sc.sim.getAgent(a).radius === 0.18 && sc.sim.getAgent(b).radius === 0.2, 'the preset agent');
    check(sc.sim.getStream(a) === 0 && sc.sim.getStream(b) === 4, 'streams');
    check(sc.goal(0).speed === orca.pedestrianFreeSpeed(9, 0) && sc.goal(1).speed === 1.1, 'free speeds');
    for (let i = 0; i < 10; ++i) sc.step();
    sc.destroy();
    // a scene file with the preset (test/test_pedestrian.c's scene_file_preset)
    const text = 'orca-scene 1\nname ped\npedestrian on\ngoalset east 20 0 20 1 20 -1\ngoalset west -20 0\n' +
      'agent 0 0 goalset east\nagent 1 0 goalset west radius=0.2\nagent 2 0 goalset east stream=5\n' +
      'agent 3 0 goal 10 10\ndefault max_neighbors 20\ndefault preferred_speed 1.1\n' +
      'grid 3 2 0 3 0.6 0.6 goalset west\n';
    for (const [t, opt] of [[text, {}], [text.replace('pedestrian on\n', ''), { pedestrian: true }]]) {
      const file = orca.readScene(t, opt);
      check(file.dt === 0.05 && file.pedestrian !== null, `scene file: dt ${file.dt}`);
      for (let i = 0; i < 30; ++i) file.step();
      check(file.sim.hash() === '2e658813a4f566b3', `scene file hash ${file.sim.hash()} = 2e658813a4f566b3 (native)`);
      file.destroy();
    }
    return 'pinned ce7a33481513c27d, scene file 2e658813a4f566b3';
  });

  test(`${label}: save and load reproduce the run`, () => {
    const sc = orca.createScene('wallgap', { agents: 40, seed: 3 });
    for (let i = 0; i < 50; ++i) sc.step();
    const snap = sc.sim.save();
    for (let i = 0; i < 50; ++i) sc.step();
    const h100 = sc.sim.hash();
    sc.sim.load(snap);
    check(sc.sim.stepCount === 50, `step count after load ${sc.sim.stepCount}`);
    for (let i = 0; i < 50; ++i) sc.step();
    check(sc.sim.hash() === h100, `${sc.sim.hash()} != ${h100}`);
    const bad = snap.slice();
    bad[bad.length - 1] ^= 0xff;
    const msg = throwsWith(() => sc.sim.load(bad), /./, 'ORCA_ERR_FORMAT');
    check(sc.sim.hash() === h100, 'a refused load changed the state');
    sc.destroy();
    return `${snap.length} bytes; corrupt: "${msg}"`;
  });

  test(`${label}: bad input throws the library's message`, () => {
    const sim = orca.createSim();
    const m1 = throwsWith(() => sim.addAgent({ radius: -1 }), /radius.*-1/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sim.addAgent({ maxNeighbors: 2.5 }), /max_neighbors/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sim.addAgent({ position: [NaN, 0] }), /position.*nan/i, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sim.addAgent({ speed: 1 }), /unknown agent field 'speed'/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sim.step(0), /dt/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sim.removeAgent({ slot: 7, generation: 1 }), /is not an agent handle/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sim.removeAgent(`agent:7:1:${sim.id}`), /agent handle \{slot 7, generation 1, sim \d+\} is stale/, 'ORCA_ERR_STALE');
    throwsWith(() => sim.setPreferredVelocities([1, 2]), /expected 0 numbers/, 'ORCA_ERR_ARGUMENT');
    sim.addAgent();
    throwsWith(() => sim.setPreferredVelocities([1e300, 0]), /preferred/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => orca.createScene('square'), /unknown scene 'square'/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => orca.createScene('circle', { agents: -5 }), /agent_count.*-5/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => orca.createScene('circle', { agent: { timeHorizon: 0 } }), /time_horizon/, 'ORCA_ERR_ARGUMENT');
    sim.destroy();
    throwsWith(() => sim.step(0.25), /destroyed/);
    return m1;
  });

  test(`${label}: a handle of another simulation throws ORCA_ERR_FOREIGN and changes nothing`, () => {
    const A = filled(orca), B = filled(orca);
    const a = A.sim, b = B.sim;
    check(a.id !== b.id && a.id > 0 && b.id > 0, `identities ${a.id} ${b.id}`);
    const before = stateOf(a);
    let refusals = 0;
    const foreign = (fn, h) => {
      const q = parseHandle(h);
      throwsWith(fn, new RegExp(`${q.kind} handle \\{slot ${q.slot}, generation ${q.generation}, sim ${b.id}\\} ` +
        `belongs to another simulation \\(this is sim ${a.id}\\)`), 'ORCA_ERR_FOREIGN');
      check(stateOf(a) === before, 'a refusal changed the simulation');
      ++refusals;
    };
    B.agents.forEach((h, k) => {
      const own = A.agents[k];
      check(parseHandle(h).slot === parseHandle(own).slot && h !== own, 'same slots, different handles');
      foreign(() => a.removeAgent(h), h);
      foreign(() => a.removeAgents([A.agents[(k + 1) % 5], h]), h);
      foreign(() => a.getAgent(h), h);
      foreign(() => a.setAgent(h, { radius: 1 }), h);
      foreign(() => a.getAvoidance(h), h);
      foreign(() => a.setAvoidance(h, { priority: 2 }), h);
      foreign(() => a.setPriority(h, 3), h);
      foreign(() => a.setLayers(h, 2, 2), h);
      foreign(() => a.setLocked(h, true), h);
      foreign(() => a.agentDiagnostics(h), h);
      check(a.agentIndex(h) === -1 && a.agentIndex(own) >= 0, 'agentIndex');
    });
    B.segs.forEach((h) => {
      foreign(() => a.removeSegment(h), h);
      foreign(() => a.removeSegments([A.segs[0], h]), h);
    });
    foreign(() => a.removeBoundary(B.loop), B.loop);
    // a scene's handles are its simulation's
    const sc = orca.createScene('custom');
    const hs = sc.addAgent({ position: [0, 0] }, { target: [3, 0] });
    check(parseHandle(hs).sim === sc.sim.id && sc.sim.agentAt(0) === hs, 'scene handle');
    throwsWith(() => a.removeAgent(hs), /belongs to another simulation/, 'ORCA_ERR_FOREIGN');
    sc.destroy();
    a.setPriority(A.agents[2], 3);
    a.removeAgent(A.agents[3]);
    check(a.agentCount === 4, 'own handles work');
    a.destroy();
    b.destroy();
    return `${refusals} refusals`;
  });

  test(`${label}: handles are values (Map keys, ===); agentAt out of range throws`, () => {
    const { sim, agents, segs, loop } = filled(orca);
    const m = new Map(agents.map((h, k) => [h, k]));
    for (let i = 0; i < sim.agentCount; ++i) check(m.get(sim.agentAt(i)) === agents.indexOf(sim.agentAt(i)), `index ${i}`);
    check(m.size === 5 && new Set(sim.segments().map((s) => s.id)).size === 3, 'keys');
    check(sim.segments()[1].id === segs[1] && sim.boundaries()[0].id === loop, 'the same handle twice');
    check(JSON.parse(JSON.stringify({ h: agents[0] })).h === agents[0], 'JSON round trip');
    const other = filled(orca);
    check(agents.every((h, k) => h !== other.agents[k]), 'another simulation: other handles');
    for (const bad of [5, 6, -1, 1.5, NaN, '0', undefined]) {
      const e = throwsWith(() => sim.agentAt(bad), /out of range \(5 agents\)/, 'ORCA_ERR_ARGUMENT');
      check(e.length > 0, 'message');
    }
    try { sim.agentAt(5); } catch (e) { check(e instanceof OrcaError, 'an OrcaError'); }
    check(parseHandle('agent:1:2') === null && parseHandle(7) === null && parseHandle(`agent:1:1:${2 ** 32}`) === null, 'parseHandle');
    // snapshots: the loading simulation keeps its identity
    const snap = sim.save();
    sim.removeAgent(agents[2]);
    check(sim.agentIndex(agents[2]) === -1, 'removed');
    sim.load(snap);
    check(sim.agentIndex(agents[2]) >= 0, 'valid again in the simulation that issued it');
    const id = other.sim.id;
    other.sim.load(snap);
    check(other.sim.id === id && other.sim.hash() === sim.hash(), 'identity kept, state loaded');
    throwsWith(() => other.sim.getAgent(agents[2]), /belongs to another simulation/, 'ORCA_ERR_FOREIGN');
    const j = sim.agentIndex(agents[2]);
    const q = parseHandle(other.sim.agentAt(j)), r = parseHandle(agents[2]);
    check(q.slot === r.slot && q.generation === r.generation && q.sim === id, 'the same slot under its own identity');
    sim.destroy();
    other.sim.destroy();
  });

  test(`${label}: bulk calls refuse counts beyond the limits before copying anything`, () => {
    const sc = orca.createScene('custom');
    sc.addAgent({ position: [0, 0] }, { target: [5, 0] });
    const sim = sc.sim;
    sim.addAgent({ position: [3, 3] });
    sim.addSegment([0, -5], [5, -5]);
    const before = stateOf(sim), h = sc.hash();
    const t0 = Date.now();
    const refused = (fn, pattern, status) => {
      throwsWith(fn, pattern, status);
      check(stateOf(sim) === before && sc.hash() === h, `${pattern}: the state changed`);
    };
    // holey arrays of 2^28 + 1 ... 2^30 + 1 entries: no element exists (reading one throws)
    refused(() => sim.addSegments(new Array(2 ** 28 + 1), new Array(2 ** 28 + 1)),
      /addSegments: a has 268435457 entries, beyond the 268435456 segments .* \(it has 1\)/, 'ORCA_ERR_LIMIT');
    refused(() => sim.addSegments(new Array(2 ** 28), new Array(2 ** 28)), /beyond the 268435456 segments/, 'ORCA_ERR_LIMIT');
    refused(() => sim.removeAgents(new Array(LIMITS.AGENTS + 1)), /removeAgents: ids has 1073741825 entries, beyond the 1073741824 agents/, 'ORCA_ERR_LIMIT');
    refused(() => sim.removeSegments(new Array(LIMITS.SEGMENTS + 1)), /removeSegments: ids has 268435457 entries/, 'ORCA_ERR_LIMIT');
    refused(() => sim.addBoundary(new Array(2 ** 24 + 1)), /addBoundary: points has 16777217 entries, beyond the 16777216 boundary edges/, 'ORCA_ERR_LIMIT');
    refused(() => sc.setWaypoints(0, new Array(2 ** 20 + 1)), /setWaypoints: points has 1048577 entries, beyond the 1048576 waypoints/, 'ORCA_ERR_LIMIT');
    refused(() => sim.setPreferredVelocities({ length: 2 ** 31 }), /expected 4 numbers/, 'ORCA_ERR_ARGUMENT');
    // within the count limit, beyond what the module can address: refused before reading
    refused(() => sim.addSegments(new Array(2 ** 28 - 1), new Array(2 ** 28 - 1)), /needs 11811160020 bytes of module memory, more than the 4 GiB/, 'ORCA_ERR_MEMORY');
    refused(() => sim.removeAgents(new Array(2 ** 29)), /needs 6442450944 bytes/, 'ORCA_ERR_MEMORY');
    const took = Date.now() - t0;
    check(took < 2000, `the refusals took ${took} ms`);
    // a failed allocation is ORCA_ERR_MEMORY with nothing written (ow_malloc made to fail)
    failMalloc = true;
    try {
      refused(() => sim.addSegments([[0, 0]], [[1, 1]]), /out of memory: addSegments of 1 segments needs 32 bytes/, 'ORCA_ERR_MEMORY');
      refused(() => sim.removeAgents([sim.agentAt(0)]), /out of memory/, 'ORCA_ERR_MEMORY');
      refused(() => sim.addBoundary([[0, 0], [1, 0], [0, 1]]), /out of memory/, 'ORCA_ERR_MEMORY');
      refused(() => sim.setPreferredVelocities([1, 0, 0, 1]), /out of memory/, 'ORCA_ERR_MEMORY');
      refused(() => sc.setWaypoints(0, [[1, 1]]), /out of memory/, 'ORCA_ERR_MEMORY');
      refused(() => sim.queryRadius([0, 0], 5), /out of memory/, 'ORCA_ERR_MEMORY');
      refused(() => sim.load(new Uint8Array(8)), /out of memory/, 'ORCA_ERR_MEMORY');
    } finally {
      failMalloc = false;
    }
    sc.destroy();
    return `${took} ms for 9 refusals`;
  });

  test(`${label}: one set of defaults: an agent with defaults is the C default; the defaults scene's hash`, () => {
    const g = orca.defaultGoal();
    check(g.kind === GOAL.NONE && g.target[0] === 0 && g.target[1] === 0 && g.speed === 1, JSON.stringify(g));
    const d = orca.defaultAgent();
    check(JSON.stringify(d) === JSON.stringify({ position: [0, 0], velocity: [0, 0], preferredVelocity: [0, 0],
      radius: 1.5, maxSpeed: 2, neighborDist: 15, maxNeighbors: 10, timeHorizon: 10, obstacleTimeHorizon: 10 }), JSON.stringify(d));
    const sc = orca.createScene('custom');
    for (const w of DEFAULTS_SCENE) {
      if (w.length > 2) sc.addAgent({ position: [w[0], w[1]] }, { target: [w[3], w[4]] });
      else sc.addAgent({ position: [w[0], w[1]] });
    }
    check(sc.goal(0).kind === GOAL.POINT && sc.goal(0).speed === 1 && sc.goal(5).kind === GOAL.NONE, 'goals');
    check(JSON.stringify(sc.sim.getAgent(sc.sim.agentAt(5))) === JSON.stringify({ ...d, position: [3, -2] }), 'agent fields');
    throwsWith(() => sc.addAgent({}, { kind: GOAL.POINT }), /needs a target/, 'ORCA_ERR_ARGUMENT');
    const steps = +DEFAULTS_GOLDEN[1];
    for (let i = 0; i < steps; ++i) sc.step();
    const hash = sc.hash();
    sc.destroy();
    check(hash === DEFAULTS_GOLDEN[2], `hash ${hash}, golden ${DEFAULTS_GOLDEN[2]}`);
    return hash;
  });

  test(`${label}: spatial queries equal a scan over every agent`, () => {
    const sc = orca.createScene('random', { agents: 1500, seed: 5 });
    for (let i = 0; i < 5; ++i) sc.step();
    const sim = sc.sim;
    const p = Float64Array.from(sim.positions());
    const n = p.length / 2;
    const d2 = (c, i) => (p[2 * i] - c[0]) * (p[2 * i] - c[0]) + (p[2 * i + 1] - c[1]) * (p[2 * i + 1] - c[1]);
    const byDistance = (c) => [...Array(n).keys()].sort((i, j) => d2(c, i) - d2(c, j) || i - j);
    let rng = 12345;
    const rand = () => ((rng = (rng * 1103515245 + 12345) % 2147483648) / 2147483648) * 120 - 60;
    let checks = 0;
    for (let t = 0; t < 25; ++t) {
      const c = [rand(), rand()];
      const r = [0, 1, 4, 15, 90][t % 5];
      const order = byDistance(c);
      const want = order.filter((i) => d2(c, i) <= r * r);
      const got = sim.queryRadius(c, r);
      check(JSON.stringify(got) === JSON.stringify(want), `radius ${r} at ${c}: ${got.length} vs ${want.length}`);
      const k = (t * 7) % 30;
      check(JSON.stringify(sim.queryNearest(c, k)) === JSON.stringify(order.slice(0, k)), `nearest ${k}`);
      const lo = [c[0] - r, c[1] - r / 2], hi = [c[0] + r / 2, c[1] + r];
      const inBox = [...Array(n).keys()].filter((i) => lo[0] <= p[2 * i] && p[2 * i] <= hi[0] && lo[1] <= p[2 * i + 1] && p[2 * i + 1] <= hi[1]);
      check(JSON.stringify(sim.queryBox(lo, hi)) === JSON.stringify(inBox), `box at ${c}`);
      checks += 3;
    }
    check(sim.queryNearest([0, 0], 1e9).length === n, 'k above the agent count gives every agent');
    throwsWith(() => sim.queryRadius([0, 0], -1), /radius.*-1/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sim.queryNearest([0, 0], -2), /k must be a whole number >= 0, got -2/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sim.queryBox([1, 0], [0, 1]), /./, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sim.queryRadius([NaN, 0], 1), /nan/i, 'ORCA_ERR_ARGUMENT');
    sc.destroy();
    return `${checks} queries equal the scan over ${n} agents`;
  });

  test(`${label}: waypoints: a patrol's laps re-computed from the positions every step`, () => {
    // examples/patrol.txt: four agents counter-clockwise from the corners of a 30 m square,
    // four clockwise from the middles of its sides, looping, arrive distance 2 m.
    const C = [[-15, -15], [15, -15], [15, 15], [-15, 15]];
    const routes = [];
    for (let a = 0; a < 4; ++a) routes.push([C[a], [1, 2, 3].map((k) => C[(a + k) % 4])]);
    for (let s = 0; s < 4; ++s) {
      const p = C[s], q = C[(s + 1) % 4];
      routes.push([[(p[0] + q[0]) * 0.5, (p[1] + q[1]) * 0.5], [0, 1, 2, 3].map((k) => C[(s - k + 4) % 4])]);
    }
    const sc = orca.createScene('custom', { dt: 0.25, seed: 1 });
    routes.forEach(([start, wp], i) => {
      sc.addAgent({ position: start, radius: 1 }, { kind: 0, target: start, speed: 1.5 });
      sc.setWaypoints(i, wp, { loop: true, arriveDistance: 2 });
    });
    const cur = routes.map(() => 0), switches = routes.map(() => 0);
    let closest = Infinity;
    for (let step = 0; step < 1200; ++step) {
      const pos = routes.map((_, a) => sc.sim.getAgent(sc.sim.agentAt(a)).position);
      routes.forEach(([start, wp], a) => {
        const all = [...wp, start];
        const t = all[cur[a]], f = all[(cur[a] + wp.length) % (wp.length + 1)]; // the leg's start
        const dx = t[0] - pos[a][0], dy = t[1] - pos[a][1];
        if (dx * dx + dy * dy <= 4 || dx * (t[0] - f[0]) + dy * (t[1] - f[1]) < 0) {
          cur[a] = (cur[a] + 1) % (wp.length + 1); switches[a]++;
        }
      });
      sc.step();
      routes.forEach((_, a) => check(sc.waypoints(a).current === cur[a], `step ${step} agent ${a}`));
      for (let a = 0; a < routes.length; ++a) {
        for (let b = a + 1; b < routes.length; ++b) {
          const p = sc.sim.getAgent(sc.sim.agentAt(a)).position, q = sc.sim.getAgent(sc.sim.agentAt(b)).position;
          closest = Math.min(closest, Math.hypot(p[0] - q[0], p[1] - q[1]) - 2);
        }
      }
    }
    const laps = routes.map(([, wp], a) => Math.floor(switches[a] / (wp.length + 1)));
    check(Math.min(...laps) >= 3, `laps ${laps}`);
    check(closest > -0.1, `closest ${closest}`);
    check(sc.arrivedCount === 0, 'looping agents never arrive');
    const w = sc.waypoints(4);
    check(w.loop && w.arriveDistance === 2 && w.points.length === 4 && w.points[0][0] === -15, JSON.stringify(w));
    const h = sc.hash();
    check(h !== sc.sim.hash(), 'the progress is in the scenario hash');
    if (patrolHash) check(h === patrolHash, `${h} != the other module's ${patrolHash}`);
    patrolHash = h;
    // errors: named, nothing changed
    throwsWith(() => sc.setWaypoints(0, [[1, 1], [NaN, 0]]), /waypoint 1/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sc.setWaypoints(0, [[1, 1]], { arriveDistance: 5e-324 }), /arrive_distance/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sc.setWaypoints(0, [[2 ** 21, 0]]), /waypoint 0/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sc.setWaypointIndex(0, 9), /waypoint index/, 'ORCA_ERR_ARGUMENT');
    check(sc.hash() === h, 'a refusal changes nothing');
    routes.forEach((_, a) => sc.setWaypoints(a, []));
    check(sc.hash() === sc.sim.hash(), 'without waypoints the scenario hash is the simulation hash');
    sc.destroy();
    return `laps ${laps.join(' ')}, hash ${h}`;
  });

  test(`${label}: avoidance: the crowd's hash and diagnostics as orca run, three ways to set them`, () => {
    const hashes = [];
    for (const how of ['fields', 'setters', 'setAvoidance']) {
      const sc = crowdScene(orca, how);
      sc.sim.setDiagnostics(true);
      const tot = { cut: 0, blocked: 0, locked: 0, fallback: 0 };
      for (let i = 0; i < CROWD_STEPS; ++i) {
        sc.step();
        const c = sc.sim.stepDiagnostics();
        for (const k of Object.keys(tot)) tot[k] += c[k];
      }
      hashes.push(sc.hash());
      if (crowdRef) {
        const d = crowdRef.diagnostics;
        check(sc.hash() === crowdRef.hash, `${how}: hash ${sc.hash()}, orca run ${crowdRef.hash}`);
        check(tot.cut === d.cut_agent_steps && tot.blocked === d.blocked_agent_steps &&
          tot.locked === d.locked_agent_steps && tot.fallback === d.fallback_agent_steps,
        `${how}: totals ${JSON.stringify(tot)} vs ${JSON.stringify(d)}`);
      }
      check(tot.locked === CROWD_STEPS * CROWD.filter((a) => a.locked).length, `locked ${tot.locked}`);
      sc.destroy();
    }
    check(hashes.every((h) => h === hashes[0]), `hashes ${hashes}`);
    if (crowdHash) check(hashes[0] === crowdHash, `${hashes[0]} != the other module's ${crowdHash}`);
    crowdHash = hashes[0];
    const plain = orca.createScene('custom', { dt: 0.25, seed: 5 });
    plain.sim.addSegment([-4, -1], [4, -1]);
    for (const a of CROWD) {
      plain.addAgent({ position: a.position, radius: a.radius, velocity: a.velocity },
        { kind: GOAL.POINT, target: a.target, speed: 1.25 });
    }
    for (let i = 0; i < CROWD_STEPS; ++i) plain.step();
    check(plain.hash() !== hashes[0], 'the settings are part of the state');
    plain.destroy();
    return crowdRef ? `${hashes[0]} = orca run` : `${hashes[0]} (no orca command: not compared)`;
  });

  // The extended path's fast form (diagnostics off; in the SIMD128 module with its kernels:
  // the share kernel, the layered box filter, the LP copy) against the reference form
  // (diagnostics on), as test_avoidance's fast_path_same_bits natively: a dense random crowd
  // with priorities, layers and masks that hide agents, locked agents, the separation and a
  // walkable-area loop close around it.
  test(`${label}: avoidance: the extended path's fast form gives the reference form's bits${orca.simd ? ' (kernels on and off)' : ''}`, () => {
    const make = () => {
      const sc = orca.createScene('random', { agents: 1500, seed: 3 });
      const sim = sc.sim;
      let lo = [Infinity, Infinity], hi = [-Infinity, -Infinity];
      const pos = sim.positions();
      for (let i = 0; i < sim.agentCount; ++i) {
        lo = [Math.min(lo[0], pos[2 * i]), Math.min(lo[1], pos[2 * i + 1])];
        hi = [Math.max(hi[0], pos[2 * i]), Math.max(hi[1], pos[2 * i + 1])];
      }
      for (let i = 0; i < sim.agentCount; i += 3) {
        sim.setAvoidance(sim.agentAt(i), { priority: [1, 3, 0.25, 7.5][i % 4], layers: 1 << ((i / 3) % 3),
          mask: [0xFFFFFFFF, 1, 6, 3][i % 4], locked: i % 41 === 0 });
      }
      sim.setSeparation(true);
      sim.addBoundary([[lo[0] - 3, lo[1] - 3], [hi[0] + 3, lo[1] - 3], [hi[0] + 3, hi[1] + 3], [lo[0] - 3, hi[1] + 3]]);
      return sc;
    };
    const forms = [{ vector: false, diagnostics: true }, { vector: false, diagnostics: false }];
    if (orca.simd) forms.push({ vector: true, diagnostics: false }, { vector: true, diagnostics: true });
    const hashes = forms.map(({ vector, diagnostics }) => {
      const sc = make();
      sc.sim.vectorKernels = vector;
      sc.sim.setDiagnostics(diagnostics);
      const per = [];
      for (let i = 0; i < 40; ++i) {
        sc.step();
        per.push(sc.sim.hash());
      }
      sc.destroy();
      return per;
    });
    for (let f = 1; f < forms.length; ++f) {
      const step = hashes[f].findIndex((h, i) => h !== hashes[0][i]);
      check(step < 0, `${JSON.stringify(forms[f])}: step ${step + 1} ${hashes[f][step]} != ${hashes[0][step]}`);
    }
    return hashes[0][39];
  });

  test(`${label}: avoidance: defaults with diagnostics on give the golden hash`, () => {
    const g = golden.find((x) => x.scene === 'wallgap');
    const sc = orca.createScene('wallgap', { agents: g.agents, seed: 1 });
    sc.sim.setDiagnostics(true);
    check(sc.sim.diagnosticsEnabled, 'diagnostics on');
    for (let i = 0; i < sc.sim.agentCount; ++i) {
      sc.sim.setAvoidance(sc.sim.agentAt(i), { priority: 1, layers: 1, mask: 0xFFFFFFFF, locked: false });
    }
    for (let i = 0; i < g.steps; ++i) sc.step();
    const h = sc.sim.hash();
    check(h === g.hash, `${h} != golden ${g.hash}`);
    check(sc.sim.stepDiagnostics().agents === g.agents, 'counts cover every agent');
    // away from the defaults and back: the plain hash and snapshot
    const snap = sc.sim.save();
    const a = sc.sim.agentAt(3);
    sc.sim.setPriority(a, 7);
    sc.sim.setLayers(a, 4, 4);
    sc.sim.setLocked(a, true);
    check(sc.sim.hash() !== h, 'settings change the hash');
    check(JSON.stringify(sc.sim.getAvoidance(a)) === JSON.stringify({ priority: 7, layers: 4, mask: 4, locked: true }),
      JSON.stringify(sc.sim.getAvoidance(a)));
    sc.sim.setAvoidance(a, { priority: 1, layers: 1, mask: 0xFFFFFFFF, locked: 0 });
    check(sc.sim.hash() === h && sc.sim.save().join() === snap.join(), 'back at the defaults');
    sc.destroy();
    return h;
  });

  test(`${label}: diagnostics: a scan over every agent, bulk equal to per agent, counts equal to the sums`, () => {
    const sim = orca.createSim();
    const n = 240;
    let rng = 777;
    const rand = () => (rng = (rng * 1103515245 + 12345) % 2147483648) / 2147483648;
    const A = [];
    for (let i = 0; i < n; ++i) {
      const a = {
        position: i === 0 ? [-31.4, 0] : i === n - 1 ? [-32, 0] : [rand() * 60 - 30, rand() * 60 - 30],
        layers: i === 0 ? 1 : Math.floor(rand() * 4), mask: i === n - 1 ? 0xFFFFFFFF : [1, 2, 3, 0xFFFFFFFF, 0][Math.floor(rand() * 5)],
        locked: i === 0 || (i !== n - 1 && rand() < 0.05), neighborDist: rand() * 8, maxNeighbors: Math.floor(rand() * 12),
        priority: 0.5 + rand() * 4,
      };
      a.velocity = a.locked && i !== 0 ? [0.2, -0.1] : [0, 0];
      A.push(a);
      sim.addAgent({ ...a, radius: 0.3 });
    }
    const pv = new Float64Array(2 * n);
    A.forEach((a, i) => { if (i % 17) { pv[2 * i] = -a.position[0] / 10; pv[2 * i + 1] = -a.position[1] / 10; } });
    pv[2 * (n - 1)] = 1; pv[2 * (n - 1) + 1] = 0; // walks into the locked agent 0: blocked
    check(!sim.diagnosticsEnabled && sim.stepDiagnostics().agents === 0, 'off, nothing recorded');
    sim.setDiagnostics(true);
    const seen = { cut: 0, blocked: 0, locked: 0 };
    for (let step = 0; step < 10; ++step) {
      sim.setPreferredVelocities(pv);
      const p = Float64Array.from(sim.positions());
      sim.step(0.25);
      const v = sim.velocities();
      const d = sim.diagnostics();
      for (let i = 0; i < n; ++i) {
        let cand = 0;
        if (!A[i].locked) {
          const nd2 = A[i].neighborDist * A[i].neighborDist;
          for (let j = 0; j < n; ++j) {
            const dx = p[2 * j] - p[2 * i], dy = p[2 * j + 1] - p[2 * i + 1];
            if (j !== i && dx * dx + dy * dy < nd2 && ((A[i].mask & A[j].layers) >>> 0) !== 0) ++cand;
          }
        }
        const pp = pv[2 * i] * pv[2 * i] + pv[2 * i + 1] * pv[2 * i + 1];
        const vv = v[2 * i] * v[2 * i] + v[2 * i + 1] * v[2 * i + 1];
        const want = {
          candidates: cand, neighborCount: A[i].locked ? 0 : Math.min(cand, A[i].maxNeighbors),
          neighborsCut: !A[i].locked && cand > A[i].maxNeighbors ? 1 : 0, locked: A[i].locked ? 1 : 0,
          blocked: !A[i].locked && pp > 0 && 100 * vv <= pp ? 1 : 0,
        };
        for (const k of Object.keys(want)) check(d[k][i] === want[k], `step ${step} agent ${i} ${k}: ${d[k][i]} vs ${want[k]}`);
        const one = sim.agentDiagnostics(sim.agentAt(i));
        for (const k of Object.keys(d)) check(one[k] === d[k][i], `agent ${i} ${k}: per agent ${one[k]}, bulk ${d[k][i]}`);
        check(d.fallback[i] ? d.failedConstraint[i] >= 0 : d.failedConstraint[i] === -1, `failed constraint ${i}`);
      }
      const sum = (a) => a.reduce((s, x) => s + x, 0);
      const c = sim.stepDiagnostics();
      check(c.agents === n && c.fallback === sum(d.fallback) && c.cut === sum(d.neighborsCut) &&
        c.blocked === sum(d.blocked) && c.locked === sum(d.locked), `counts ${JSON.stringify(c)}`);
      check(c.fallback === sim.lastFallbackCount, 'fallback count');
      seen.cut += c.cut; seen.blocked += c.blocked; seen.locked += c.locked;
    }
    check(seen.cut > 0 && seen.blocked > 0 && seen.locked > 0, `every field exercised: ${JSON.stringify(seen)}`);
    const fresh = sim.addAgent({ position: [100, 100] });
    check(JSON.stringify(sim.agentDiagnostics(fresh)) === JSON.stringify({ fallback: 0, failedConstraint: -1,
      neighborCount: 0, candidates: 0, neighborsCut: 0, blocked: 0, locked: 0, headwayPlanes: 0, counterMode: 0 }),
      'an agent added since reads as cleared');
    check(sim.diagnostics().candidates.length === n + 1, 'bulk length');
    sim.destroy();
    return `${n} agents x 10 steps; agent-steps cut ${seen.cut}, blocked ${seen.blocked}, locked ${seen.locked}`;
  });

  test(`${label}: avoidance: every refusal throws the library's message and changes nothing`, () => {
    const sc = orca.createScene('custom', { dt: 0.25, seed: 1 });
    const a = sc.addAgent({ position: [0, 0], priority: 3 }, { kind: GOAL.POINT, target: [5, 0] });
    sc.addAgent({ position: [5, 0], layers: 2 }, { kind: GOAL.POINT, target: [0, 0] });
    for (let i = 0; i < 3; ++i) sc.step();
    const sim = sc.sim;
    const h = sc.hash(), snap = sim.save().join();
    const refused = (fn, pattern) => {
      throwsWith(fn, pattern, 'ORCA_ERR_ARGUMENT');
      check(sc.hash() === h && sim.save().join() === snap && sim.agentCount === 2, `${pattern}: the state changed`);
    };
    const P = /^priority must be in \[2\^-30, 2\^30\], got /;
    for (const p of [0, -0, -1, NaN, Infinity, -Infinity, 2 ** 31, 1e-300, 5e-324, Number.MAX_VALUE, 2 ** 30 * (1 + 2 ** -52), 2 ** -30 * (1 - 2 ** -53)]) {
      refused(() => sim.setPriority(a, p), P);
      refused(() => sim.setAvoidance(a, { priority: p, layers: 5 }), P);
      refused(() => sim.addAgent({ priority: p }), P);
      refused(() => sc.addAgent({ priority: p }, { kind: GOAL.NONE }), P);
    }
    for (const l of [2, -1, 7]) {
      refused(() => sim.setLocked(a, l), new RegExp(`^locked must be 0 or 1, got ${l}$`));
      refused(() => sim.addAgent({ locked: l }), new RegExp(`^locked must be 0 or 1, got ${l}$`));
    }
    refused(() => sim.setLocked(a, 1.5), /^locked must be true, false, 0 or 1, got 1.5/);
    refused(() => sim.setLocked(a, 2 ** 40), /^locked must be/);
    for (const m of [-1, 2 ** 32, 1.5, NaN, '3']) {
      refused(() => sim.setLayers(a, m, 1), /^layers must be a whole number in \[0, 0xFFFFFFFF\]/);
      refused(() => sim.setLayers(a, 1, m), /^mask must be a whole number/);
      refused(() => sim.setAvoidance(a, { mask: m }), /^mask must be/);
      refused(() => sc.addAgent({ layers: m }), /^layers must be/);
    }
    refused(() => sim.setAvoidance(a, { speed: 1 }), /unknown avoidance setting 'speed'/);
    sim.setPriority(a, 2 ** 30);
    sim.setPriority(a, 2 ** -30);
    check(sim.getAvoidance(a).priority === 2 ** -30, 'the range edges are accepted');
    sim.setPriority(a, 3);
    const b = sim.addAgent({ position: [20, 20] });
    sim.removeAgent(b);
    const h2 = sc.hash();
    for (const fn of [() => sim.setPriority(b, 2), () => sim.setLayers(b, 1, 1), () => sim.setLocked(b, 1),
      () => sim.setAvoidance(b, { priority: 2 }), () => sim.getAvoidance(b), () => sim.agentDiagnostics(b)]) {
      throwsWith(fn, /agent handle \{slot \d+, generation \d+, sim \d+\} is stale/, 'ORCA_ERR_STALE');
      check(sc.hash() === h2, 'a stale handle changed the state');
    }
    sc.destroy();
    return 'priority, locked, layers, mask, stale handles';
  });

  // --- navigation -------------------------------------------------------------------------
  test(`${label}: navigation: the trap room's agents arrive only with it; the hash of orca run`, () => {
    const plain = roomScene(orca, false, false);
    for (let i = 0; i < 500; ++i) plain.step();
    const p = plain.sim.positions();
    check(plain.arrivedCount === 0 && p[0] < 10 && p[2] < 10 && p[4] < 10, `without: ${plain.arrivedCount} arrived`);
    check(plain.hash() === plain.sim.hash() && !plain.agentNav(0).navigating, 'navigation off: the plain hash');
    plain.destroy();
    const sc = roomScene(orca, true, false);
    for (let i = 0; i < 500; ++i) sc.step();
    const all = sc.allArrivedStep;
    check(sc.arrivedCount === 3 && all > 0 && sc.navUnreachable === 0, `with: ${sc.arrivedCount} arrived`);
    sc.destroy();
    const ref = roomScene(orca, true);
    for (let i = 0; i < ROOM_STEPS; ++i) ref.step();
    const h = ref.hash(), ex = ref.exited;
    check(ex.count === 1 && ex.lastStep > 0 && ref.sim.agentCount === 3, `exited ${JSON.stringify(ex)}`);
    if (roomRef) {
      check(roomRef.navigation === true && h === roomRef.hash, `hash ${h}, orca run ${roomRef.hash}`);
      check(roomRef.exited === ex.count && roomRef.exited_last_step === ex.lastStep, 'exits as orca run');
      check(roomRef.nav_unreachable === ref.navUnreachable && roomRef.arrived === ref.arrivedCount + ex.count, 'counts as orca run');
    }
    if (roomHash === null) roomHash = h;
    check(h === roomHash, `hash ${h}, the other module ${roomHash}`);
    ref.destroy();
    return `all 3 arrived at step ${all} with navigation, 0 without; ${h}${roomRef ? ' = orca run' : ' (no orca command: not compared)'}`;
  });

  test(`${label}: navigation: the leg check, the exit choice, capacities and the counts over the run`, () => {
    const text = ['orca-scene 1', 'dt 0.25', 'seed 5', 'navigation on check=on exits=quickest',
      'goalset doors 1 1 11 11 exit arrive=0.5 capacity=2.5', 'polyline 0 0 12 0 12 12 0 12 0 0'];
    for (let k = 0; k < 12; ++k) {
      text.push(`agent ${3 + 0.9 * (k % 4)} ${3 + 0.9 * Math.floor(k / 4)} goalset doors radius=0.3 preferred_speed=1.2 max_speed=1.5`);
    }
    const sc = orca.readScene(text.join('\n') + '\n');
    check(sc.navCheck === true && sc.exitChoice === 'quickest' && sc.goalSetCapacity('doors') === 2.5, 'the file\'s options');
    throwsWith(() => sc.setExitChoice('fast'), /exitChoice must be 'nearest', 'calm' or 'quickest', got 'fast'/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sc.setGoalSetCapacity('doors', 0), /capacity/, 'ORCA_ERR_ARGUMENT');
    check(sc.exitChoice === 'quickest' && sc.goalSetCapacity(0) === 2.5, 'a refusal changed nothing');
    for (let i = 0; i < 1000; ++i) sc.step();
    const c = sc.navCounts;
    check(c.exited === 12 && c.arrived === 12 && c.atExits === 0 && sc.sim.agentCount === 0, `counts ${JSON.stringify(c)}`);
    check(c.plans >= 12 && c.mostChanges <= 2 && c.unreachable === 0 && c.exitReturns <= c.exitChanges, `counts ${JSON.stringify(c)}`);
    const d0 = sc.exitDepartures('doors', 0), d1 = sc.exitDepartures(0, 1);
    check(d0.count + d1.count === 12 && Math.max(d0.lastStep, d1.lastStep) === sc.exited.lastStep, 'departures');
    const fresh = orca.createScene('custom', { dt: 0.25, seed: 5 });
    fresh.setNavigation(true);
    fresh.setNavCheck(true);
    fresh.setExitChoice('calm');
    check(fresh.navCheck && fresh.exitChoice === 'calm', 'set on a new scene');
    fresh.destroy();
    sc.destroy();
    return `${c.plans} plans, ${c.reroutes} re-routings, ${c.replans} replans, ${c.exitChanges} exit changes; ${d0.count} + ${d1.count} left`;
  });

  test(`${label}: navigation: scene.save and scene.load continue with the same bits`, () => {
    const sc = roomScene(orca, true);
    sc.setWaypoints(0, [[5, 2], [5, 8]], { loop: true });
    for (let i = 0; i < 40; ++i) sc.step();
    const h0 = sc.hash();
    const snap = sc.save();
    check(snap instanceof Uint8Array && String.fromCharCode(...snap.slice(0, 8)) === 'ORCASCEN', 'magic');
    const seq = [];
    for (let i = 0; i < ROOM_STEPS; ++i) { sc.step(); seq.push(`${sc.hash()} ${sc.sim.hash()}`); }
    const ex = sc.exited;
    check(ex.count === 1, `exited ${JSON.stringify(ex)}`);
    sc.load(snap);
    check(sc.hash() === h0, 'hash after load');
    for (let i = 0; i < ROOM_STEPS; ++i) { sc.step(); check(`${sc.hash()} ${sc.sim.hash()}` === seq[i], `step ${i} after the load`); }
    const fresh = orca.createScene('custom', { dt: 1, seed: 9 });
    fresh.load(snap);
    check(fresh.hash() === h0 && fresh.dt === 0.25 && fresh.navigation && JSON.stringify(fresh.goalSets) === '["out"]', 'fresh scene');
    for (let i = 0; i < ROOM_STEPS; ++i) { fresh.step(); check(`${fresh.hash()} ${fresh.sim.hash()}` === seq[i], `fresh: step ${i}`); }
    check(JSON.stringify(fresh.exited) === JSON.stringify(ex), 'exits');
    const before = fresh.hash();
    const bad = snap.slice();
    bad[bad.length - 1] ^= 0xff;
    const msg = throwsWith(() => fresh.load(bad), /checksum/, 'ORCA_ERR_FORMAT');
    throwsWith(() => fresh.load(snap.slice(0, 100)), /not an orca scenario snapshot/, 'ORCA_ERR_FORMAT');
    throwsWith(() => fresh.load([1, 2]), /Uint8Array/, 'ORCA_ERR_ARGUMENT');
    check(fresh.hash() === before, 'a refused load changed the state');
    fresh.destroy();
    sc.destroy();
    return `${snap.length} bytes; corrupt: "${msg}"`;
  });

  test(`${label}: navigation: agentNav, agentPath, goal sets and the path query`, () => {
    const sc = roomScene(orca, true);
    check(sc.navigation === true && JSON.stringify(sc.goalSets) === '["out"]', 'navigation, goalSets');
    const gs = sc.goalSet('out');
    check(JSON.stringify(gs) === JSON.stringify({ index: 0, name: 'out', points: [[15, 2], [15, 8]], exit: true, arriveDistance: 0.5 }), JSON.stringify(gs));
    check(JSON.stringify(sc.goalSet(0)) === JSON.stringify(gs), 'by index');
    const g3 = sc.goal(3);
    check(g3.kind === GOAL.SET && g3.goalSet === 'out' && g3.target[0] === 15 && sc.goal(0).goalSet === null, JSON.stringify(g3));
    check(sc.agentNav(0).result === null && sc.agentNav(0).plans === 0 && sc.agentPath(0).length === 0, 'before a plan');
    sc.step();
    const nav = orca.createNav(sc.sim);
    const ends = new Set(ROOM.map((q) => q.join()));
    ROOM_AGENTS.forEach(([start, goal], i) => {
      const a = sc.agentNav(i), path = sc.agentPath(i);
      check(a.navigating && a.result === 'ok' && a.plans === 1 && a.corners === path.length && path.length >= 3, JSON.stringify(a));
      check(a.goal[0] === goal[0] && a.goal[1] === goal[1] && a.length > 20, 'goal and length');
      for (const c of path) {
        check(ends.has(c.vertex.join()) && Math.abs(c.side) === 1, JSON.stringify(c));
        for (const q of [c.enter, c.leave]) check(Math.abs(Math.hypot(q[0] - c.vertex[0], q[1] - c.vertex[1]) - 0.4) < 1e-12, 'at the radius');
      }
      // the agent's plan is the path query from its start
      const q = nav.path(0.4, start, [goal]);
      check(q.result === 'ok' && q.length === a.length && JSON.stringify(q.corners) === JSON.stringify(path), `query ${q.length} vs ${a.length}`);
    });
    const st = nav.stats(0.4);
    check(st.walls === 5 && st.vertices === 6 && st.legs > 0 && st.bytes > 0, JSON.stringify(st));
    nav.destroy();
    throwsWith(() => nav.path(0.4, [1, 1], [[2, 2]]), /navigation object was destroyed/);
    // a point obstacle: the closed form 2 sqrt(24) + pi - 2 acos(1/5) for r = 1
    const sim = orca.createSim();
    sim.addSegment([0, 0], [0, 0]);
    const p = sim.navPath(1, [-5, 0], [[5, 0]]);
    const closed = 2 * Math.sqrt(24) + Math.PI - 2 * Math.acos(1 / 5);
    check(p.result === 'ok' && Math.abs(p.length - closed) <= 1e-14 * closed && p.corners.length === 1, `${p.length} vs ${closed}`);
    const n2 = orca.createNav(sim);
    const two = n2.path(1, [-5, 0], [[5, 0], [-5, 3], [-5, -3]]);
    check(two.goalIndex === 1 && two.length === 3 && two.corners.length === 0, 'the nearest goal, straight');
    check(n2.path(1, [-0.5, 0], [[5, 0]]).result === 'start_blocked', 'start blocked');
    const gb = n2.path(1, [-5, 0], [[0.5, 0]]);
    check(gb.result === 'goal_blocked' && gb.length === null && gb.goalIndex === null, 'goal blocked');
    const box = sim.addSegments([[10, -2], [14, -2], [14, 2], [10, 2]], [[14, -2], [14, 2], [10, 2], [10, -2]]);
    check(n2.path(0.5, [-5, 0], [[12, 0]]).result === 'no_path', 'a closed box');
    sim.removeSegment(box[3]);
    check(n2.path(0.5, [-5, 0], [[12, 0]]).result === 'ok', 'opened: the next query sees it');
    n2.destroy();
    sim.destroy();
    // an agent whose goal is in the closed box: no path, counted, it stands
    const sc2 = orca.createScene('custom', { dt: 0.25, seed: 1 });
    sc2.sim.addSegments([[20, 20], [24, 20], [24, 24], [20, 24]], [[24, 20], [24, 24], [20, 24], [20, 20]]);
    sc2.setNavigation(true);
    sc2.addGoalSet('box', [[22, 22]]);
    sc2.addAgent({ position: [30, 22] }, { kind: GOAL.SET, goalSet: 0 });
    for (let i = 0; i < 20; ++i) sc2.step();
    const pos = sc2.sim.positions();
    check(sc2.navUnreachable === 1 && sc2.agentNav(0).result === 'no_path' && pos[0] === 30 && pos[1] === 22, 'unreachable');
    sc2.setGoalSetExit('box', 0);
    check(sc2.goalSet('box').exit === true, 'setGoalSetExit');
    sc2.setNavigation(false);
    check(sc2.navUnreachable === 0 && sc2.navigation === false, 'off');
    sc2.destroy();
    sc.destroy();
    return `path ${p.length} = closed form`;
  });

  test(`${label}: navigation: setGoal gives an agent a new goal mid-run`, () => {
    const sc = roomScene(orca, true);
    sc.step();
    check(sc.agentNav(0).plans === 1, 'first plan');
    sc.setGoal(0, { target: [5, 5] }); // back inside the room: in sight
    sc.step();
    const nav = sc.agentNav(0);
    check(nav.plans === 2 && nav.goal[0] === 5 && nav.goal[1] === 5 && nav.corners === 0, `plans ${nav.plans}`);
    check(sc.goal(0).target[0] === 5, 'goal(0)');
    sc.setGoal(1, { goalSet: 'out', speed: 1.3 });
    check(sc.goal(1).goalSet === 'out' && sc.goal(1).speed === 1.3, 'goal set');
    sc.setGoal(2, { kind: GOAL.VELOCITY, target: [0.5, 0] });
    check(!sc.agentNav(2).navigating && sc.agentNav(2).plans === 0, 'velocity: no path state');
    const before = sc.hash();
    throwsWith(() => sc.setGoal(9, { target: [1, 1] }), /^index must be in \[0, 4\), got 9$/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sc.setGoal(1.5, { target: [1, 1] }), /index must be an integer/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sc.setGoal(0, { target: [NaN, 1] }), /goal point must have finite coordinates/, 'ORCA_ERR_ARGUMENT');
    throwsWith(() => sc.setGoal(0, { goalSet: 'gone' }), /unknown goal set 'gone'/, 'ORCA_ERR_ARGUMENT');
    check(sc.hash() === before, 'refusals changed the state');
    for (let i = 0; i < 800 && sc.exited.count < 2; ++i) sc.step();
    check(sc.exited.count === 2, `exited ${sc.exited.count}`);
    sc.destroy();
    return 'planned again at the next step; refusals change nothing';
  });

  test(`${label}: navigation: refusals throw the library's message and change nothing`, () => {
    const sc = roomScene(orca, true);
    for (let i = 0; i < 2; ++i) sc.step();
    const before = `${sc.hash()} ${sc.goalSets.join()} ${sc.sim.agentCount}`;
    const refused = (fn, pattern, status = 'ORCA_ERR_ARGUMENT') => {
      throwsWith(fn, pattern, status);
      check(`${sc.hash()} ${sc.goalSets.join()} ${sc.sim.agentCount}` === before, `${pattern}: the state changed`);
    };
    for (const bad of [NaN, Infinity, -Infinity, 2 ** 21, -1e308]) {
      refused(() => sc.addGoalSet('g', [[1, 1], [bad, 0]]), /^goal set 'g': point 1 must have finite coordinates of magnitude below 2\^21/);
    }
    refused(() => sc.addGoalSet('out', [[1, 1]]), /^goal set 'out' exists already$/);
    refused(() => sc.addGoalSet('', [[1, 1]]), /^goal set name must have 1 to 63 characters, got 0$/);
    refused(() => sc.addGoalSet('x'.repeat(64), [[1, 1]]), /got 64$/);
    refused(() => sc.addGoalSet(3, [[1, 1]]), /name must be a string/);
    refused(() => sc.addGoalSet('g', []), /count must be in \[1, 65536\], got 0/);
    refused(() => sc.addGoalSet('g', [[1]]), /goal set point 0 must be a pair/);
    refused(() => sc.addGoalSet('g', new Array(LIMITS.NAV_GOALS + 1)), /^addGoalSet: points has 65537 entries, beyond the 65536 points of a goal set/, 'ORCA_ERR_LIMIT');
    for (const bad of [-1, 5e-324, 2 ** -31, 2 ** 23 * (1 + 2 ** -52), NaN, Infinity]) {
      refused(() => sc.addGoalSet('g', [[1, 1]], { exit: true, arriveDistance: bad }), /^arrive_distance must be 0 \(the agent's radius\) or in \[2\^-30, 2\^23\] m, got /);
      refused(() => sc.setGoalSetExit('out', bad), /^arrive_distance must be 0 \(the agent's radius\) or in \[2\^-30, 2\^23\] m, got /);
    }
    refused(() => sc.addGoalSet('g', [[1, 1]], { arriveDistance: 1 }), /arriveDistance is for exits/);
    refused(() => sc.addAgent({ position: [1, 1] }, { goalSet: 'gone' }), /^unknown goal set 'gone' \(the scene has 1/);
    refused(() => sc.addAgent({ position: [1, 1] }, { goalSet: 5 }), /^goal_set must name a goal set: in \[0, 1\), got 5$/);
    refused(() => sc.addAgent({ position: [1, 1] }, { kind: GOAL.SET }), /needs goalSet/);
    refused(() => sc.addAgent({ position: [1, 1] }, { goalSet: 'out', target: [2, 2] }), /not a target/);
    refused(() => sc.addAgent({ position: [1, 1] }, { kind: GOAL.POINT, target: [2, 2], goalSet: 'out' }), /goalSet is for a GOAL.SET goal/);
    refused(() => sc.addAgent({ position: [1, 1] }, { goalSet: 'out', speed: -1 }), /preferred_speed must be in \[0, 2\^30\]/);
    refused(() => sc.goalSet(3), /goal set must be in \[0, 1\), got 3/);
    refused(() => sc.goalSet('nope'), /unknown goal set 'nope'/);
    refused(() => sc.agentNav(4), /^index must be in \[0, 4\), got 4$/);
    refused(() => sc.agentPath(-1), /^index must be in \[0, 4\), got -1$/);
    const nav = orca.createNav(sc.sim);
    for (const r of [0, -1, NaN, Infinity, 2 ** -21, 2 ** 21]) refused(() => nav.path(r, [5, 5], [[15, 2]]), /radius/);
    for (const bad of [[NaN, 0], [0, Infinity], [2 ** 21, 0]]) {
      refused(() => nav.path(0.5, bad, [[15, 2]]), /from/);
      refused(() => nav.path(0.5, [5, 5], [[15, 2], bad]), /goal/);
    }
    refused(() => nav.path(0.5, [5, 5], []), /goal_count/);
    refused(() => nav.path(0.5, [5, 5], new Array(LIMITS.NAV_GOALS + 1)), /^path: goals has 65537 entries/, 'ORCA_ERR_LIMIT');
    refused(() => orca.createNav(sc), /expected a Sim/);
    // a failed allocation is ORCA_ERR_MEMORY with nothing written (ow_malloc made to fail)
    failMalloc = true;
    try {
      refused(() => sc.addGoalSet('g', [[1, 1]]), /out of memory/, 'ORCA_ERR_MEMORY');
      refused(() => sc.addAgent({ position: [1, 1] }, { goalSet: 'out' }), /out of memory/, 'ORCA_ERR_MEMORY');
      refused(() => sc.goalSet('out'), /out of memory/, 'ORCA_ERR_MEMORY');
      refused(() => sc.agentPath(0), /out of memory/, 'ORCA_ERR_MEMORY');
      refused(() => nav.path(0.5, [5, 5], [[15, 2]]), /out of memory/, 'ORCA_ERR_MEMORY');
      refused(() => sc.sim.navPath(0.5, [5, 5], [[15, 2]]), /out of memory/, 'ORCA_ERR_MEMORY');
    } finally {
      failMalloc = false;
    }
    nav.destroy();
    sc.destroy();
    return 'points, names, arrive distances, limits, memory';
  });

  test(`${label}: overrides equal to the scene's values keep the golden hash`, () => {
    const sc = orca.createScene('corridor', { agents: 40, seed: 1, speed: 1, agent: { radius: 1.5, maxSpeed: 2 } });
    for (let i = 0; i < 300; ++i) sc.step();
    const h = sc.sim.hash();
    sc.destroy();
    const g = golden.find((x) => x.scene === 'corridor');
    check(h === g.hash, `${h} != ${g.hash}`);
    return h;
  });
}

// --- the safe API (issue 31): OrcaError, views, handles, cleanup, the private surface -------
{
  // The exports seen through wrapExports: calls of ow_malloc, ow_sim_destroy,
  // ow_scenario_destroy, ow_nav_destroy and ow_scene_file_destroy counted.
  const calls = { ow_malloc: 0, ow_sim_destroy: 0, ow_scenario_destroy: 0, ow_nav_destroy: 0, ow_scene_file_destroy: 0 };
  let exportsSeen = null;
  const orca = await loadOrca({ simd: false, wrapExports: (x) => {
    const w = { ...x };
    for (const k of Object.keys(calls)) w[k] = (...a) => { ++calls[k]; return x[k](...a); };
    exportsSeen = x;
    return w;
  } });
  const isOrcaError = (fn, pattern, status) => {
    try {
      fn();
    } catch (e) {
      check(e instanceof OrcaError && e instanceof Error, `${e && e.name}: ${e && e.message} is not an OrcaError`);
      check(e.name === 'OrcaError' && e.code === STATUS[e.status], `name ${e.name}, code ${e.code} of ${e.status}`);
      check(pattern.test(e.message), `message "${e.message}" does not match ${pattern}`);
      check(e.status === status, `status ${e.status}, expected ${status}`);
      return e.message;
    }
    throw new Error(`no error thrown (expected ${pattern})`);
  };

  test('OrcaError: STATUS is the library\'s enumeration (orca_status_name of each code)', () => {
    const names = [];
    for (let code = 0; code >= -8; --code) {
      const p = exportsSeen.ow_status_name(code);
      const b = new Uint8Array(exportsSeen.memory.buffer, p, 40);
      names.push(new TextDecoder().decode(b.subarray(0, b.indexOf(0))));
    }
    check(JSON.stringify(names) === JSON.stringify(Object.keys(STATUS)), `${names} != ${Object.keys(STATUS)}`);
    check(Object.values(STATUS).every((v, k) => v === -k), 'codes 0 .. -8');
    return `${names.length} statuses`;
  });

  test('OrcaError for every failure: library statuses, module checks, bad seeds and counts, destroyed objects', () => {
    const sim = orca.createSim();
    sim.addAgent({ position: [0, 0] });
    const h0 = sim.hash();
    const msgs = [
      isOrcaError(() => orca.createScene('circle', { seed: 1.5 }), /^seed must be a whole number in \[0, 2\^64\), got 1\.5$/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => orca.createScene('circle', { seed: -1 }), /got -1$/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => orca.createScene('circle', { seed: 2n ** 64n }), /got 18446744073709551616$/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => orca.createScene('circle', { seed: '7' }), /got '7'$/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => orca.createScene('circle', { agents: 2.5 }), /agent count must be a whole number, got 2\.5/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => orca.createScene('nowhere'), /unknown scene 'nowhere'/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => orca.createScene('circle', null), /options must be an object/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => sim.addAgent({ position: [5, 5], maxNeighbors: 2.5 }), /^max_neighbors must be in 0\.\.1024, got 2\.5$/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => sim.addAgent({ position: [5, 5], maxNeighbors: 2 ** 40 }), /got 1099511627776$/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => sim.addAgent({ position: [5, 5], maxNeighbors: 2000 }), /^max_neighbors must be in 0\.\.1024, got 2000$/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => sim.addAgent({ position: [5, 5], maxNeighbors: NaN }), /got NaN$/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => sim.addAgent({ radius: -1 }), /radius must be in/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => sim.addAgent(null), /an agent definition must be an object, got null/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => sim.agentAt(3), /out of range/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => sim.removeAgent(`agent:0:1:${sim.id + 1}`), /belongs to another simulation/, 'ORCA_ERR_FOREIGN'),
      isOrcaError(() => sim.load(new Uint8Array(8)), /./, 'ORCA_ERR_FORMAT'),
      isOrcaError(() => sim.positionsInto(new Float64Array(1)), /positionsInto: expected a Float64Array of at least 2 entries/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => sim.velocitiesInto([0, 0]), /velocitiesInto: expected a Float64Array/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => new Sim(), /Sim objects come from loadOrca\(\) and its factories/, 'ORCA_ERR_ARGUMENT'),
      isOrcaError(() => new Orca(), /Orca objects/, 'ORCA_ERR_ARGUMENT'),
    ];
    check(sim.hash() === h0 && sim.agentCount === 1, 'a refusal changed the simulation');
    const sc = orca.createScene('circle', { agents: 4, seed: 2n ** 64n - 1n });
    check(sc.seed === 2n ** 64n - 1n, `seed ${sc.seed}`);
    isOrcaError(() => sc.addAgent({ position: [1, 1] }, null), /a goal must be an object/, 'ORCA_ERR_ARGUMENT');
    isOrcaError(() => sc.sim.destroy(), /belongs to a scene: destroy the scene/, 'ORCA_ERR_ARGUMENT');
    check(!sc.sim.destroyed && sc.sim.agentCount === 4, 'scene.sim.destroy() changed the scene');
    const nav = orca.createNav(sim);
    sim.destroy();
    sim.destroy(); // again: nothing
    check(sim.destroyed, 'destroyed');
    isOrcaError(() => sim.hash(), /the simulation was destroyed/, 'ORCA_ERR_STALE');
    isOrcaError(() => sim.positions(), /the simulation was destroyed/, 'ORCA_ERR_STALE');
    isOrcaError(() => nav.path(0.5, [0, 0], [[1, 1]]), /the simulation was destroyed/, 'ORCA_ERR_STALE');
    nav.destroy();
    isOrcaError(() => nav.stats(0.5), /the navigation object was destroyed/, 'ORCA_ERR_STALE');
    sc.destroy();
    check(sc.destroyed && sc.sim.destroyed, 'the scene\'s sim goes with it');
    isOrcaError(() => sc.step(), /the scene was destroyed/, 'ORCA_ERR_STALE');
    isOrcaError(() => sc.sim.step(0.25), /the simulation was destroyed/, 'ORCA_ERR_STALE');
    return `${msgs.length + 10} refusals; e.g. "${msgs[7]}"`;
  });

  test('views: re-checked at each call; after memory grows and after load they read the current values', () => {
    const sc = orca.createScene('circle', { agents: 100, seed: 1 });
    for (let i = 0; i < 50; ++i) sc.step();
    const kept = sc.sim.positions();
    const keptVel = sc.sim.velocities();
    check(kept === sc.sim.positions() && keptVel === sc.sim.velocities(), 'the same view while current');
    const before = Float64Array.from(kept);
    const mem0 = exportsSeen.memory.buffer.byteLength;
    // another big scene grows the module's memory: every view on the old buffer detaches
    const big = orca.createScene('random', { agents: 20000, seed: 3 });
    const grown = exportsSeen.memory.buffer.byteLength;
    check(grown > mem0, `memory did not grow (${mem0} -> ${grown})`);
    check(kept.length === 0, `the kept view should have detached, length ${kept.length}`);
    const now = sc.sim.positions();
    check(now !== kept && now.length === 200, 'a new view');
    check(now.every((v, k) => Object.is(v, before[k])), 'the new view reads the same values');
    const into = sc.sim.positionsInto(new Float64Array(256));
    check(before.every((v, k) => Object.is(v, into[k])) && into[200] === 0, 'positionsInto copies 2n values');
    const vel = sc.sim.velocitiesInto(new Float64Array(200));
    check(vel.every((v, k) => Object.is(v, sc.sim.velocities()[k])), 'velocitiesInto');
    big.destroy();
    // load: the state of step 10 again; the accessor reads it
    const sc2 = orca.createScene('circle', { agents: 100, seed: 1 });
    for (let i = 0; i < 10; ++i) sc2.step();
    const at10 = Float64Array.from(sc2.sim.positions());
    sc.load(sc2.save());
    check(sc.sim.positions().every((v, k) => Object.is(v, at10[k])), 'positions after load');
    // removals: the view shrinks with the agents
    sc.sim.removeAgents([sc.sim.agentAt(0), sc.sim.agentAt(1)]);
    const p = sc.sim.positions();
    check(p.length === 196 && Object.is(p[0], at10[4]), `after removals: length ${p.length}`);
    for (let i = 10; i < 400; ++i) sc2.step();
    check(sc2.sim.hash() === '4be6d7e7a7e24a3a', `golden hash ${sc2.sim.hash()}`);
    sc.destroy();
    sc2.destroy();
    return `memory ${mem0} -> ${grown} bytes`;
  });

  test('setPreferredVelocities: no allocation per frame (one block, kept); the same bits as an array', () => {
    const a = orca.createScene('circle', { agents: 100, seed: 1 });
    const b = orca.createScene('circle', { agents: 100, seed: 1 });
    const v = new Float64Array(200);
    let allocs = 0;
    for (let i = 0; i < 60; ++i) {
      const p = b.sim.positions();
      for (let k = 0; k < 100; ++k) {
        v[2 * k] = -p[2 * k] / 10;
        v[2 * k + 1] = -p[2 * k + 1] / 10;
      }
      const m0 = calls.ow_malloc;
      b.sim.setPreferredVelocities(v);
      allocs += calls.ow_malloc - m0;
      b.sim.step(0.25);
      a.sim.setPreferredVelocities(Array.from(v));
      a.sim.step(0.25);
    }
    check(allocs === 1, `${allocs} allocations in 60 frames`);
    check(a.sim.hash() === b.sim.hash(), 'array and Float64Array differ');
    a.destroy();
    b.destroy();
    return `${allocs} allocation in 60 frames`;
  });

  test('handles(): the handles of agentAt(i) in index order', () => {
    const sim = orca.createSim();
    check(sim.handles().length === 0, 'empty');
    const hs = [];
    for (let k = 0; k < 7; ++k) hs.push(sim.addAgent({ position: [3 * k, 0] }));
    sim.removeAgents([hs[1], hs[4]]);
    hs.push(sim.addAgent({ position: [40, 0] }));
    const all = sim.handles();
    check(all.length === sim.agentCount, 'count');
    check(all.every((h, i) => h === sim.agentAt(i) && sim.agentIndex(h) === i), 'agentAt order');
    sim.destroy();
    return all.join(' ');
  });

  test('private surface: no own properties; the prototypes list only the API', () => {
    const sc = orca.createScene('circle', { agents: 4 });
    const nav = orca.createNav(sc.sim);
    const own = [orca, sc, sc.sim, nav].map((o) => Reflect.ownKeys(o).join(','));
    check(JSON.stringify(own) === JSON.stringify(['simd,version', '', '', '']), `own properties ${own}`);
    const internals = ['x', 'scratch', 'memory', 'ptr', 'check', 'live', 'writeDef', 'handle', 'orca', 'owned',
      'alloc', 'fits', 'str', 'cstr', 'fail', 'f64', 'u32', 'query', 'removeHandles', 'checkAvoidance',
      'applyAvoidance', 'densityParams', 'goalArgs', 'goalSetIndex'];
    for (const o of [orca, sc, sc.sim, nav]) {
      for (const k of internals) check(!(k in o), `${o.constructor.name}.${k} is visible`);
    }
    const counts = [Orca, Sim, Scene, Nav].map((c) => Reflect.ownKeys(c.prototype).length - 1);
    nav.destroy();
    sc.destroy();
    return `prototype members Orca ${counts[0]}, Sim ${counts[1]}, Scene ${counts[2]}, Nav ${counts[3]}`;
  });

  test('readScene frees its parsed file whether the build succeeds or not; a refused read makes none', () => {
    const c0 = { ...calls };
    const sc = orca.readScene('agent 0 0 goal 1 0');
    isOrcaError(() => orca.readScene('agent 0 0 radius=0'), /radius must be > 0/, 'ORCA_ERR_FORMAT');
    isOrcaError(() => orca.readScene('boundary 0 0 1 0 1 1\nagent 5 5'), /agent 0: /, 'ORCA_ERR_ARGUMENT');
    check(calls.ow_scene_file_destroy - c0.ow_scene_file_destroy === 2, `destroys ${calls.ow_scene_file_destroy - c0.ow_scene_file_destroy}`);
    sc.destroy();
    check(calls.ow_scenario_destroy - c0.ow_scenario_destroy === 1, 'one scenario, destroyed with its scene');
    check(calls.ow_malloc - c0.ow_malloc > 0, 'text and name copied');
    return 'ok';
  });

  test('destroy() and Symbol.dispose free the objects; scene.sim is the scene\'s', () => {
    const DISPOSE = Symbol.dispose ?? Symbol.for('nodejs.dispose');
    const c0 = { ...calls };
    const sim = orca.createSim();
    sim[DISPOSE]();
    check(sim.destroyed && calls.ow_sim_destroy === c0.ow_sim_destroy + 1, 'dispose');
    const sc = orca.createScene('circle', { agents: 4 });
    const nav = orca.createNav(sc.sim);
    nav[DISPOSE]();
    sc[DISPOSE]();
    sc.destroy();
    check(calls.ow_scenario_destroy === c0.ow_scenario_destroy + 1 && calls.ow_nav_destroy === c0.ow_nav_destroy + 1,
      'scene and nav freed once');
    check(calls.ow_sim_destroy === c0.ow_sim_destroy + 1, 'a scene\'s sim is not destroyed on its own');
  });

  // The FinalizationRegistry: wrappers dropped without destroy() free their objects once collected.
  const { setFlagsFromString } = await import('node:v8');
  const { runInNewContext } = await import('node:vm');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  const c0 = { ...calls };
  (() => {
    for (let k = 0; k < 20; ++k) {
      const s = orca.createSim();
      s.addAgent({ position: [0, 0] });
      s.setPreferredVelocities([1, 0]);
      const sc = orca.createScene('circle', { agents: 10 });
      orca.createNav(sc.sim);
    }
  })();
  for (let k = 0; k < 10 && calls.ow_sim_destroy - c0.ow_sim_destroy < 20; ++k) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  test('FinalizationRegistry: collected wrappers free their simulations, scenes and navigation objects', () => {
    const d = Object.fromEntries(Object.keys(calls).map((k) => [k, calls[k] - c0[k]]));
    // (at least: wrappers of the tests above may be collected too)
    check(d.ow_sim_destroy >= 20 && d.ow_scenario_destroy >= 20 && d.ow_nav_destroy >= 20,
      `freed ${JSON.stringify(d)}`);
    return `20 sims, 20 scenes, 20 navs freed after gc`;
  });
}

console.log(`web-node: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
