// SPDX-License-Identifier: MIT
// The demo page's frame rate (docs/web.md, "The page"): the page at a scene (default the
// random scene with 10,000 agents, SIMD128, one step per frame, trails on, 1280x800) in
// headless Chromium, with the simulation in its module Worker and on the page's thread
// (?worker=0), each with requestAnimationFrame at 60 Hz and without the frame-rate limit
// (--disable-frame-rate-limit --disable-gpu-vsync: what each design would give beyond 60 fps).
// Per run: 1 s of warm-up, then `seconds` measured (app.resetPerf, app.perfSummary): frames
// per second, stepping ms per step, drawing ms per frame, the share of the drawing that
// overlapped stepping. The four set-ups alternate in each round (a load on a shared machine
// comes and goes, so it falls on all of them alike); prints every run and the medians.
//   node web/test/fps.mjs [--rounds 3] [--seconds 4] [--query scene=random&agents=10000&spf=1&simd=1]
// Needs web/wasm/ (scripts/web-build.sh) and web/node_modules (scripts/web-test.sh); CHROMIUM
// (default /usr/bin/chromium).
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { serveStatic } from './static-server.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : def;
};
const ROUNDS = Number(arg('--rounds', '3'));
const SECONDS = Number(arg('--seconds', '4'));
const QUERY = arg('--query', 'scene=random&agents=10000&spf=1&simd=1');

const { server, origin } = await serveStatic(ROOT);
const BASE = `${origin}/web/`;

const ARGS = ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'];
const browsers = {
  '60 Hz': await puppeteer.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ARGS }),
  unlimited: await puppeteer.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: [...ARGS, '--disable-frame-rate-limit', '--disable-gpu-vsync'] }),
};

async function run(browser, worker) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${BASE}?${QUERY}${worker ? '' : '&worker=0'}`);
  await page.waitForFunction(() => window.orcaApp && window.orcaApp.ready, { timeout: 60000 });
  await new Promise((r) => setTimeout(r, 1000));
  await page.evaluate(() => window.orcaApp.resetPerf());
  await new Promise((r) => setTimeout(r, 1000 * SECONDS));
  const p = await page.evaluate(() => window.orcaApp.perfSummary());
  await page.close();
  if (errors.length) throw new Error(errors.join('; '));
  return p;
}

const SETUPS = [];
for (const limit of Object.keys(browsers)) for (const worker of [true, false]) SETUPS.push({ limit, worker });
const results = SETUPS.map(() => []);
const f = (v) => v.toFixed(2);
const line = (s, p) => `${s.worker ? 'worker' : 'page  '} ${s.limit.padEnd(9)} ${p.fps.toFixed(1).padStart(6)} fps  ` +
  `frame ${f(p.frameMs).padStart(6)} ms  step ${f(p.stepMs).padStart(6)} ms  draw ${f(p.drawMs).padStart(6)} ms  ` +
  `overlap ${(100 * p.overlap).toFixed(0).padStart(3)}%`;
console.log(`fps: ${QUERY}, 1280x800, ${SECONDS} s per run, ${ROUNDS} rounds`);
for (let r = 0; r < ROUNDS; ++r) {
  for (let k = 0; k < SETUPS.length; ++k) {
    const p = await run(browsers[SETUPS[k].limit], SETUPS[k].worker);
    results[k].push(p);
    console.log(`round ${r + 1}: ${line(SETUPS[k], p)}`);
  }
}
const median = (a) => {
  const b = [...a].sort((x, y) => x - y);
  return b.length % 2 ? b[b.length >> 1] : (b[b.length / 2 - 1] + b[b.length / 2]) / 2;
};
console.log('medians:');
SETUPS.forEach((s, k) => {
  const m = Object.fromEntries(['fps', 'frameMs', 'stepMs', 'drawMs', 'overlap'].map((key) => [key, median(results[k].map((p) => p[key]))]));
  console.log(`  ${line(s, m)}`);
});
for (const b of Object.values(browsers)) await b.close();
server.close();
