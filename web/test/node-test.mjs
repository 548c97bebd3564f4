// SPDX-License-Identifier: MIT
// web/orca.mjs under Node.js, both modules (scalar and SIMD128): every golden scene of
// test/golden/determinism.txt reaches its hash; the SIMD128 module's kernels on and off give
// the same hashes; the JavaScript API (agents, segments, bulk preferred velocities, typed-array
// views, save/load, errors with the library's messages).
//   node web/test/node-test.mjs
// Prints "PASS name" / "FAIL name: why" lines and "web-node: N passed, N failed".
import { readFile } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOrca, simdSupported } from '../orca.mjs';

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
for (const [label, file] of [['scalar', 'orca.wasm'], ['SIMD128', 'orca-simd.wasm']]) {
  const orca = await loadOrca({ wasm: await readFile(join(ROOT, 'web/wasm', file)) });
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
    const p = sim.addBoundary(pillar);
    const got = sim.boundaries();
    check(got.length === 2 && got[1].points[2][0] === 12 && got[0].id.slot === r.slot, 'boundaries()');
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
    check(p.buffer === orca.memory.buffer, 'positions are a view on the module memory');
    const d = Math.hypot(p[0] - p[2], p[1] - p[3]);
    check(p[0] > -10 && p[2] < 10, `agents did not move: ${p}`);
    check(d >= 3 - 1e-9, `agents overlap: distance ${d}`);
    check(sim.getAgent(a).radius === 1.5 && sim.agentAt(1).slot === b.slot, 'getAgent/agentAt');
    sim.setAgent(b, { radius: 1 });
    check(sim.getAgent(b).radius === 1 && sim.getAgent(b).maxSpeed === 2, 'setAgent keeps other fields');
    check(sim.stepCount === 40, `step count ${sim.stepCount}`);
    sim.destroy();
    return `distance ${d.toFixed(4)} after 40 steps`;
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
    throwsWith(() => sim.removeAgent({ slot: 7, generation: 1 }), /./, 'ORCA_ERR_STALE');
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
        const t = [...wp, start][cur[a]];
        const dx = t[0] - pos[a][0], dy = t[1] - pos[a][1];
        if (dx * dx + dy * dy <= 4) { cur[a] = (cur[a] + 1) % (wp.length + 1); switches[a]++; }
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

console.log(`web-node: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
