// SPDX-License-Identifier: MIT
// Run a WASI (preview1) command module under Node.js: node scripts/wasi-run.mjs prog.wasm [args...]
// stdout/stderr are the process's own; the exit status is the module's exit code.
// Node prints an "ExperimentalWarning" about WASI on stderr; it does not touch stdout.
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';
import { argv, env, exit } from 'node:process';

const [file, ...args] = argv.slice(2);
if (!file) {
  console.error('usage: node wasi-run.mjs module.wasm [args...]');
  exit(2);
}

// No preopened directories: the determinism program needs no file system access.
const wasi = new WASI({ version: 'preview1', args: [file, ...args], env, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(file));
// The import object spelled out (rather than wasi.getImportObject(), Node >= 19.8) so that
// Node 18 (Debian 12's nodejs) works too.
const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport });
const code = wasi.start(instance);
exit(code ?? 0);
