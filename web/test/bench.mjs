// SPDX-License-Identifier: MIT
// Throughput of the wasm modules (docs/web.md): agent-steps per second on the random scene,
// as `orca bench` measures it (recording off, 20 warm-up steps, then
// clamp(2,000,000 / agents, 10, 200) timed steps; the best of the runs), for the scalar and the
// SIMD128 module, under Node and in headless Chromium. One worker. The two modules' runs
// alternate (scalar, SIMD128, scalar, ...), and the ratio row is the median over the rounds of
// each round's SIMD128 rate / scalar rate, so that a load on a shared machine, which comes and
// goes, falls on both sides of each ratio alike. Prints a Markdown table.
//   node web/test/bench.mjs [--sizes 1000,10000,100000] [--runs 3]
// Needs web/wasm/ (scripts/web-build.sh) and, for Chromium, web/node_modules (scripts/web-test.sh).
import { readFile } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOrca } from '../orca.mjs';
import { serveStatic } from './static-server.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : def;
};
const SIZES = arg('--sizes', '1000,10000,100000').split(',').map(Number);
const RUNS = Number(arg('--runs', '3'));

// The measurement, the same text in Node and in the page: for each size, the runs of the
// modules (an array of loaded orca.mjs instances) in turn; returns rates[module][size], the
// agent-steps/s of each run.
async function measure(mods, sizes, runs) {
  const rates = mods.map(() => ({}));
  for (const agents of sizes) {
    const steps = Math.min(200, Math.max(10, Math.floor(2000000 / agents)));
    for (let r = 0; r < runs; ++r) {
      for (let m = 0; m < mods.length; ++m) {
        const sc = mods[m].createScene('random', { agents, seed: 1 });
        sc.recording = false;
        for (let i = 0; i < 20; ++i) sc.step();
        const t0 = performance.now();
        for (let i = 0; i < steps; ++i) sc.step();
        const s = (performance.now() - t0) / 1000;
        sc.destroy();
        (rates[m][agents] ??= []).push((agents * steps) / s);
      }
    }
  }
  return rates;
}

const MODULES = [['scalar', 'orca.wasm'], ['SIMD128', 'orca-simd.wasm']];
const results = {}; // results[where][module][size]
{
  const mods = [];
  for (const [, file] of MODULES) mods.push(await loadOrca({ wasm: await readFile(join(ROOT, 'web/wasm', file)) }));
  const rates = await measure(mods, SIZES, RUNS);
  results.Node = Object.fromEntries(MODULES.map(([mod], m) => [mod, rates[m]]));
}

let puppeteer = null;
try {
  puppeteer = (await import('puppeteer-core')).default;
} catch {
  console.error('bench: puppeteer-core missing (scripts/web-test.sh installs it): no Chromium figures');
}
if (puppeteer) {
  const { server, origin } = await serveStatic(ROOT);
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
  const page = await browser.newPage();
  await page.goto(`${origin}/web/test/blank.html`);
  const rates = await page.evaluate(async (sizes, runs, src) => {
    const { loadOrca } = await import('/web/orca.mjs');
    const mods = [await loadOrca({ simd: false }), await loadOrca({ simd: true })];
    const measureFn = new Function(`return (${src})`)();
    return measureFn(mods, sizes, runs);
  }, SIZES, RUNS, measure.toString());
  results.Chromium = Object.fromEntries(MODULES.map(([mod], m) => [mod, rates[m]]));
  await browser.close();
  server.close();
}

const fmt = (runs) => (Math.max(...runs) / 1e6).toFixed(2); // the best run
const median = (a) => {
  const b = [...a].sort((x, y) => x - y);
  return b.length % 2 ? b[b.length >> 1] : (b[b.length / 2 - 1] + b[b.length / 2]) / 2;
};
console.log(`| build | ${SIZES.map((n) => `${n.toLocaleString('en')} agents`).join(' | ')} |`);
console.log(`|---|${SIZES.map(() => '---:').join('|')}|`);
for (const where of Object.keys(results)) {
  const r = results[where];
  for (const mod of Object.keys(r)) {
    console.log(`| ${where}, ${mod} | ${SIZES.map((n) => fmt(r[mod][n])).join(' | ')} |`);
  }
  const ratio = (n) => median(r.SIMD128[n].map((v, k) => v / r.scalar[n][k]));
  console.log(`| ${where}, SIMD128 / scalar (median of rounds) | ${SIZES.map((n) => `${ratio(n).toFixed(2)}x`).join(' | ')} |`);
}
console.log('(millions of agent-steps per second, one worker)');
