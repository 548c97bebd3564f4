// SPDX-License-Identifier: MIT
// A typed consumer of the npm package (scripts/npm-package-test): compiled by `tsc --noEmit`
// against orca.d.ts, built by `vite build`, run in Chromium. It runs the golden circle and
// shows the hash; window.orcaResult carries it to the test.
import { loadOrca, OrcaError, STATUS, type Handle, type Scene } from 'orca-wasm';

declare global {
  interface Window { orcaResult?: { hash: string; step: number; simd: boolean; handles: number; error: string | null } }
}

const orca = await loadOrca();
const scene: Scene = orca.createScene('circle', { agents: 100, seed: 1 });
for (let i = 0; i < 400; ++i) scene.step();
const hash: string = scene.sim.hash();
const handles: Handle[] = scene.sim.handles();
const copy = scene.sim.positionsInto(new Float64Array(2 * scene.sim.agentCount));
let error: string | null = null;
try {
  orca.createScene('circle', { seed: 1.5 });
} catch (e) {
  if (e instanceof OrcaError && e.code === STATUS.ORCA_ERR_ARGUMENT) error = e.status;
}
const step = scene.sim.stepCount;
scene.destroy();
window.orcaResult = { hash, step, simd: orca.simd, handles: handles.length, error };
document.getElementById('out')!.textContent =
  `step ${step}: hash ${hash} (${orca.simd ? 'SIMD128' : 'scalar'}; ${copy.length / 2} agents)`;
