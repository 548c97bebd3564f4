// SPDX-License-Identifier: MIT
// The simulation in a module Worker (docs/web.md, "A module Worker"): the page sends
// { type: 'start', scene, agents, seed } and then, once per frame, { type: 'frame', steps,
// buffer } with the ArrayBuffer of the positions it last received (or null); the worker steps,
// copies the positions into that buffer (positionsInto: no allocation once it is big enough)
// and transfers it back with the step count and the state hash.
import { loadOrca } from '../orca.mjs';

let orca = null;
let scene = null;
self.onmessage = async ({ data: m }) => {
  try {
    if (m.type === 'start') {
      orca ??= await loadOrca();
      scene?.destroy();
      scene = orca.createScene(m.scene, { agents: m.agents, seed: m.seed });
      self.postMessage({ type: 'ready', agents: scene.sim.agentCount, simd: orca.simd });
    } else if (m.type === 'frame') {
      for (let k = 0; k < m.steps; ++k) scene.step();
      const n = 2 * scene.sim.agentCount;
      const out = m.buffer && m.buffer.byteLength >= 8 * n ? new Float64Array(m.buffer, 0, n) : new Float64Array(n);
      scene.sim.positionsInto(out);
      self.postMessage({ type: 'frame', step: scene.sim.stepCount, hash: scene.sim.hash(), positions: out },
        [out.buffer]);
    }
  } catch (e) {
    self.postMessage({ type: 'error', status: e.status ?? null, message: String(e.message ?? e) });
  }
};
