#!/usr/bin/env bash
# Checks an HTML page from `trajscope export --html` in headless Chromium: anchors, folds,
# keyboard, no network request, no script error; saves light and dark screenshots.
#
#   scripts/html-browser-test.sh PAGE.html SCREENSHOT.png [STEP]
#
# Needs Debian's chromium (apt-get install chromium) and Node.js; installs playwright-core
# (the driver only, no browser download) into .cache/browser-test the first time.
# Exits 77 ("skipped") when Chromium, Node.js or playwright-core cannot be had.
set -euo pipefail
cd "$(dirname "$0")/.."

PLAYWRIGHT_VERSION=1.65.1
chromium=${CHROMIUM:-/usr/bin/chromium}
if [[ ! -x "$chromium" ]]; then
    echo "html-browser-test: skipped: no Chromium at $chromium (apt-get install chromium)" >&2
    exit 77
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "html-browser-test: skipped: Node.js and npm are needed" >&2
    exit 77
fi
modules=.cache/browser-test
if [[ ! -d "$modules/node_modules/playwright-core" ]]; then
    mkdir -p "$modules"
    if ! npm install --prefix "$modules" --no-audit --no-fund --no-save \
        "playwright-core@$PLAYWRIGHT_VERSION" >"$modules/npm.log" 2>&1; then
        echo "html-browser-test: skipped: could not install playwright-core (see $modules/npm.log)" >&2
        exit 77
    fi
fi
CHROMIUM="$chromium" NODE_PATH="$PWD/$modules/node_modules" \
    exec node scripts/html-browser-test.cjs "$@"
