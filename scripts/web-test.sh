#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The browser module's tests (docs/web.md): builds web/wasm/ (scripts/web-build.sh), installs
# puppeteer-core into web/node_modules when missing (npm ci: the registry, no browser
# download), then runs web/test/node-test.mjs (orca.mjs under Node, both modules) and
# web/test/browser-test.mjs (the page in headless Chromium, $CHROMIUM or /usr/bin/chromium),
# and the documentation's JavaScript examples under Node (scripts/docs-examples), then the npm
# package in a fresh Vite project (web/test/package-test.mjs).
# Screenshots: out/web/. Closes with "web: N passed, N failed"; exit status 0 when all passed.
#   scripts/web-test.sh [--figure docs/figures/web.jpg]   (--figure also rewrites docs/web.md's
#                                                         screenshot)
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
passed=0
failed=0
count() { # count LOG PREFIX: add the "PREFIX: N passed, N failed" line of LOG
    local line
    line=$(grep -E "^$2: [0-9]+ passed, [0-9]+ failed" "$1" | tail -n 1)
    if [[ -z $line ]]; then
        echo "web-test: $2 did not finish (see above)"
        failed=$((failed + 1))
        return
    fi
    passed=$((passed + $(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")))
    failed=$((failed + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")))
}
mkdir -p out/web
if ! bash scripts/web-build.sh; then
    echo "web: 0 passed, 1 failed (the wasm build failed)"
    exit 1
fi
if [[ ! -f web/node_modules/puppeteer-core/package.json ]]; then
    (cd web && npm ci --no-audit --no-fund) || {
        echo "web: 0 passed, 1 failed (npm ci in web/ failed)"
        exit 1
    }
fi
node web/test/node-test.mjs 2>&1 | tee out/web/node-test.log
count out/web/node-test.log web-node
# The JavaScript examples of README.md and docs/*.md under Node (scripts/docs-examples).
python3 scripts/docs-examples --lang js 2>&1 | tee out/web/docs-examples.log
count out/web/docs-examples.log docs-examples
chromium=${CHROMIUM:-/usr/bin/chromium}
if [[ ! -x $chromium ]]; then
    echo "web-test: $chromium not found (scripts/install-deps.sh installs Debian's chromium)"
    failed=$((failed + 1))
else
    CHROMIUM=$chromium timeout 300 node web/test/browser-test.mjs "$@" 2>&1 | tee out/web/browser-test.log
    count out/web/browser-test.log web-browser
fi
# The npm package (scripts/npm-pack) installed into a fresh Vite project, type-checked, built
# and run in Chromium (web/test/package-test.mjs; vite and typescript from the npm registry).
if [[ -x $chromium ]]; then
    CHROMIUM=$chromium timeout 600 node web/test/package-test.mjs 2>&1 | tee out/web/package-test.log
    count out/web/package-test.log web-package
fi
echo "web: $passed passed, $failed failed"
[[ $failed == 0 ]]
