#!/usr/bin/env bash
# `npm run bench:search`: search quality on Cranfield and CACM (ours vs MiniSearch, Orama, wink-bm25 and Lucene, same run;
# the goal row hybrid ÷ the best of Lucene and wink-bm25), every search parameter cross-validated across the two
# collections (bench/search-tuning.ts), hybrid against lexical over 40 random draws of 0–100 % of vectors per
# collection (indexing lag, worst draw), the static embedder against MiniLM (quality cross-validated, documents/s;
# bench/embedders.ts), then MemorySearchIndex build/memory/latency at 1k, 10k and 100k synthetic
# artifacts. About 10 minutes on two cores once the MiniLM vectors are cached (bench/embedding-cache.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-installed.sh
node --import tsx --expose-gc bench/search-quality.ts
node --import tsx bench/indexing-lag.ts
node --import tsx bench/embedders.ts
exec node --import tsx --expose-gc bench/search-latency.ts
