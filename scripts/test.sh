#!/usr/bin/env bash
# `npm test`: install what is missing, then run the whole suite against real engines that the
# harness starts on free ports and tears down afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-installed.sh
exec node --import tsx test/run.ts "$@"
