// SPDX-License-Identifier: MIT
// The npm package as a web developer installs it (docs/web.md, "The npm package"): builds the
// tarball (scripts/npm-pack), installs it into a fresh Vite project (out/npm/app, from
// web/test/package-app/ with the vite.config.js of the package's README, copied from it as a
// user would; vite and typescript from the npm registry, its cache when offline),
// checks the typed consumer main.ts with `tsc --noEmit` against orca.d.ts, runs `vite build`,
// serves dist/ and loads it in headless Chromium (puppeteer-core, $CHROMIUM or
// /usr/bin/chromium): the golden circle's hash 4be6d7e7a7e24a3a. The built bundle has both
// .wasm files and no browser stub of a Node module. Then the same app under Vite's dev server
// (its JavaScript API, on 127.0.0.1): the golden hash in Chromium with that config's
// `optimizeDeps: { exclude: ['orca-wasm'] }` (docs/web.md), and a failure to load the module
// without it (pre-bundling moves orca.mjs away from its wasm/), which shows the setting is
// what makes it work.
//   node web/test/package-test.mjs
// Prints "PASS name" / "FAIL name: why" lines and "web-package: N passed, N failed".
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import { serveStatic } from './static-server.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const APP = join(ROOT, 'out/npm/app');
const VITE = '5.4.9';
const TYPESCRIPT = '5.9.3';
let passed = 0;
let failed = 0;
async function test(name, fn) {
  try {
    const note = await fn();
    ++passed;
    console.log(`PASS ${name}${note ? ` (${note})` : ''}`);
    return true;
  } catch (e) {
    ++failed;
    console.log(`FAIL ${name}: ${e && e.message ? e.message : e}`);
    return false;
  }
}
function check(cond, msg) { if (!cond) throw new Error(msg); }
function run(cmd, args, cwd) {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(' ')}: ${(e.stdout || '') + (e.stderr || '')}`.slice(0, 2000));
  }
}

let tgz;
const ok = await test('scripts/npm-pack builds the tarball', () => {
  tgz = run('bash', [join(ROOT, 'scripts/npm-pack')], ROOT).trim().split('\n').pop();
  const files = run('tar', ['-tzf', join(ROOT, tgz)], ROOT).trim().split('\n').sort();
  const want = ['package/LICENSE', 'package/README.md', 'package/orca.d.ts', 'package/orca.mjs',
    'package/package.json', 'package/wasm/orca-simd.wasm', 'package/wasm/orca.wasm'];
  check(JSON.stringify(files) === JSON.stringify(want), `files ${files}`);
  return `${tgz}: ${files.length} files`;
}) && await test('a fresh Vite project installs it (npm install)', async () => {
  await rm(APP, { recursive: true, force: true });
  await mkdir(APP, { recursive: true });
  await cp(join(ROOT, 'web/test/package-app'), APP, { recursive: true });
  // the app's vite.config.js is the package README's, as a user copies it (nothing more)
  const readme = await readFile(join(ROOT, 'web/npm/README.md'), 'utf8');
  const config = /```js\n\s*\/\/ vite\.config\.js\n([\s\S]*?)```/.exec(readme.replace(/^ {2}/gm, ''));
  check(config, 'web/npm/README.md has no vite.config.js block');
  await writeFile(join(APP, 'vite.config.js'), config[1]);
  await writeFile(join(APP, 'package.json'), JSON.stringify({
    name: 'orca-vite-app', private: true, type: 'module',
    dependencies: { 'orca-wasm': `file:../${basename(tgz)}` },
    devDependencies: { vite: VITE, typescript: TYPESCRIPT },
  }, null, 2));
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], APP);
  return `vite ${VITE}, typescript ${TYPESCRIPT}`;
}) && await test('tsc --noEmit: the typed consumer against orca.d.ts (strict)', () => {
  run(join(APP, 'node_modules/.bin/tsc'), ['--noEmit', '-p', '.'], APP);
}) && await test('vite build: the bundle ships both modules and no Node module stub', async () => {
  run(join(APP, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], APP);
  const assets = await readdir(join(APP, 'dist/assets'));
  check(assets.some((f) => /^orca-[\w-]+\.wasm$/.test(f)) && assets.some((f) => /^orca-simd-[\w-]+\.wasm$/.test(f)),
    `assets ${assets}`);
  for (const f of assets.filter((a) => a.endsWith('.js'))) {
    const js = await readFile(join(APP, 'dist/assets', f), 'utf8');
    check(!js.includes('__vite-browser-external') && !/from\s*["']node:/.test(js), `${f} pulls in a Node module`);
  }
  return assets.join(' ');
});

if (ok) {
  const { server, origin } = await serveStatic(join(APP, 'dist'));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
  // The app at url in a page: window.orcaResult (or the problems: page errors, console errors,
  // failed requests, HTTP errors).
  const runApp = async (url, simd) => {
    const page = await browser.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
    page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
    // without SIMD: WebAssembly.validate says no to the probe, so orca.wasm is fetched
    if (!simd) await page.evaluateOnNewDocument(() => { WebAssembly.validate = () => false; });
    await page.goto(url);
    const r = await page.waitForFunction(() => window.orcaResult, { timeout: 30000 })
      .then(() => page.evaluate(() => window.orcaResult), () => null);
    await page.close();
    return { r, problems };
  };
  const golden = ({ r, problems }, simd) => {
    check(problems.length === 0, problems.join('; '));
    check(r, 'no result in 30 s');
    check(r.hash === '4be6d7e7a7e24a3a' && r.step === 400, `hash ${r.hash} at step ${r.step}`);
    check(r.simd === simd, `module simd ${r.simd}`);
    check(r.handles === 100 && r.error === 'ORCA_ERR_ARGUMENT', `handles ${r.handles}, error ${r.error}`);
    return `hash ${r.hash} at step ${r.step}`;
  };
  for (const simd of [true, false]) {
    await test(`the built app in Chromium: the golden circle hash (${simd ? 'SIMD128' : 'scalar, SIMD disabled'})`,
      async () => golden(await runApp(`${origin}/`, simd), simd));
  }
  // Vite's dev server (the app's own vite): serves main.ts and the package from node_modules.
  const vite = await import(pathToFileURL(join(APP, 'node_modules/vite/dist/node/index.js')).href);
  // exclude: the app's vite.config.js; else the same settings without the exclude
  const devServer = async (exclude) => {
    const dev = await vite.createServer({
      root: APP, logLevel: 'silent', clearScreen: false, server: { host: '127.0.0.1', hmr: false },
      ...(exclude ? { configFile: join(APP, 'vite.config.js') } : {
        configFile: false, cacheDir: join(APP, 'node_modules/.vite-prebundled'), build: { target: 'es2022' },
        optimizeDeps: { force: true, esbuildOptions: { target: 'es2022' } },
      }),
    });
    await dev.listen();
    return dev;
  };
  for (const simd of [true, false]) {
    await test(`vite dev server: the app in Chromium, the golden circle hash (${simd ? 'SIMD128' : 'scalar'})`, async () => {
      const dev = await devServer(true);
      try {
        return golden(await runApp(dev.resolvedUrls.local[0], simd), simd);
      } finally {
        await dev.close();
      }
    });
  }
  await test('vite dev server without optimizeDeps.exclude: the pre-bundled orca.mjs gets no .wasm (the setting is needed)', async () => {
    const dev = await devServer(false);
    let out;
    try {
      out = await runApp(dev.resolvedUrls.local[0], true);
    } finally {
      await dev.close();
    }
    check(!out.r, `it ran (${JSON.stringify(out.r)}): the exclude would not be needed`);
    const failure = out.problems.find((p) => /orca: (not a usable orca module|could not load)/.test(p));
    check(failure, `no failure to load the .wasm: ${out.problems.join('; ')}`);
    return failure.split('\n')[0];
  });
  await browser.close();
  server.close();
}
console.log(`web-package: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
