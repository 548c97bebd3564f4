// SPDX-License-Identifier: MIT
// Throughput of the wasm modules (docs/web.md): agent-steps per second on the random scene,
// as `orca bench` measures it (recording off, 20 warm-up steps, then
// clamp(2,000,000 / agents, 10, 200) timed steps; the best of the runs), for the scalar and the
// SIMD128 module, under Node and in headless Chromium. One worker. Prints a Markdown table.
//   node web/test/bench.mjs [--sizes 1000,10000,100000] [--runs 3]
// Needs web/wasm/ (scripts/web-build.sh) and, for Chromium, web/node_modules (scripts/web-test.sh).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOrca } from '../orca.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : def;
};
const SIZES = arg('--sizes', '1000,10000,100000').split(',').map(Number);
const RUNS = Number(arg('--runs', '3'));

// The measurement, the same text in Node and in the page: returns agent-steps/s.
async function measure(orca, agents, runs) {
  const steps = Math.min(200, Math.max(10, Math.floor(2000000 / agents)));
  let best = 0;
  for (let r = 0; r < runs; ++r) {
    const sc = orca.createScene('random', { agents, seed: 1 });
    sc.recording = false;
    for (let i = 0; i < 20; ++i) sc.step();
    const t0 = performance.now();
    for (let i = 0; i < steps; ++i) sc.step();
    const s = (performance.now() - t0) / 1000;
    sc.destroy();
    best = Math.max(best, (agents * steps) / s);
  }
  return best;
}

const results = {}; // results[where][module][size]
for (const [mod, file] of [['scalar', 'orca.wasm'], ['SIMD128', 'orca-simd.wasm']]) {
  const orca = await loadOrca({ wasm: await readFile(join(ROOT, 'web/wasm', file)) });
  for (const n of SIZES) {
    ((results.Node ??= {})[mod] ??= {})[n] = await measure(orca, n, RUNS);
  }
}

let puppeteer = null;
try {
  puppeteer = (await import('puppeteer-core')).default;
} catch {
  console.error('bench: puppeteer-core missing (scripts/web-test.sh installs it): no Chromium figures');
}
if (puppeteer) {
  const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm' };
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    const file = join(ROOT, path);
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/web/test/blank.html`);
  for (const mod of ['scalar', 'SIMD128']) {
    for (const n of SIZES) {
      const v = await page.evaluate(async (simd, agents, runs, src) => {
        const { loadOrca } = await import('/web/orca.mjs');
        const orca = await loadOrca({ simd });
        const measureFn = new Function(`return (${src})`)();
        return measureFn(orca, agents, runs);
      }, mod === 'SIMD128', n, RUNS, measure.toString());
      ((results.Chromium ??= {})[mod] ??= {})[n] = v;
    }
  }
  await browser.close();
  server.close();
}

const fmt = (x) => (x / 1e6).toFixed(2);
console.log(`| build | ${SIZES.map((n) => `${n.toLocaleString('en')} agents`).join(' | ')} |`);
console.log(`|---|${SIZES.map(() => '---:').join('|')}|`);
for (const where of Object.keys(results)) {
  for (const mod of Object.keys(results[where])) {
    console.log(`| ${where}, ${mod} | ${SIZES.map((n) => fmt(results[where][mod][n])).join(' | ')} |`);
  }
}
console.log('(millions of agent-steps per second, one worker)');
