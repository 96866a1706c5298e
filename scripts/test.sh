#!/usr/bin/env bash
# `npm test`: install what is missing, then run the whole suite (unit and integration tests) against
# real engines that the harness starts on free ports and tears down afterwards.
# `npm run test:unit` (`scripts/test.sh --unit`): only test/**/*.unit.test.ts, without engines; it
# installs nothing but the npm packages. Further arguments filter test files by path (test/run.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--unit" ]; then
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "[setup] installing npm packages" >&2
    ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund >&2
  fi
else
  bash scripts/ensure-installed.sh
fi
exec node --import tsx test/run.ts "$@"
