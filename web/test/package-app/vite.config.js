// SPDX-License-Identifier: MIT
// The Vite app of scripts/npm-package-test. Top-level await in main.ts: an ES2022 target.
// The dev server must not pre-bundle orca-wasm (that moves orca.mjs away from its wasm/).
export default {
  build: { target: 'es2022' },
  optimizeDeps: { exclude: ['orca-wasm'], esbuildOptions: { target: 'es2022' } },
};
