#!/usr/bin/env bash
# `npm run bench:search`: search quality on Cranfield and CACM (ours vs MiniSearch, Orama, wink-bm25 and Lucene, same run),
# hybrid against lexical while a fraction of the vectors exist (indexing lag), then
# MemorySearchIndex build/memory/latency at 1k, 10k and 100k synthetic artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-installed.sh
node --import tsx --expose-gc bench/search-quality.ts
node --import tsx bench/indexing-lag.ts
exec node --import tsx --expose-gc bench/search-latency.ts
