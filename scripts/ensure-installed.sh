#!/usr/bin/env bash
# Installs what a fresh clone lacks: npm packages (when package-lock.json is newer than the install)
# and the embedded engines (temporal-dev/install.sh, idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] installing npm packages" >&2
  npm ci --no-audit --no-fund >&2
fi
bash temporal-dev/install.sh
