#!/usr/bin/env bash
# `npm start`: install what is missing, start the engines (unless TEMPORAL_ADDRESS / MONGODB_URI point
# elsewhere), then the worker and the API.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-installed.sh
exec node --import tsx scripts/dev.ts
