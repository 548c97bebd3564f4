// SPDX-License-Identifier: MIT
// The web tests' static file server (browser-test, fps, bench, package-test): serves the files
// under root over HTTP on 127.0.0.1 (a free port), with the content types a browser needs for
// module scripts and .wasm (application/wasm, for WebAssembly.instantiateStreaming); a path
// ending in / serves its index.html; anything outside root is refused (403), a missing file
// is 404.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.txt': 'text/plain', '.png': 'image/png', '.json': 'application/json' };

/** Starts serving root; resolves to { server, origin } (origin: "http://127.0.0.1:PORT"). */
export async function serveStatic(root) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    let file = join(root, path);
    if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) {
      res.writeHead(403).end();
      return;
    }
    if (path.endsWith('/')) file = join(file, 'index.html');
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${server.address().port}` };
}
