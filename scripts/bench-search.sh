#!/usr/bin/env bash
# `npm run bench:search`: search quality on Cranfield (ours vs MiniSearch and Orama, same run), then
# MemorySearchIndex build/memory/latency at 1k, 10k and 100k synthetic artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-installed.sh
node --import tsx --expose-gc bench/search-quality.ts
exec node --import tsx --expose-gc bench/search-latency.ts
