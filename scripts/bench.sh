#!/usr/bin/env bash
# `npm run bench`: artifact create and get against a raw Koa + driver baseline, in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-installed.sh
exec node --import tsx bench/artifacts.ts "$@"
