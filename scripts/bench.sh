#!/usr/bin/env bash
# `npm run bench`: artifact create, get and search against a raw Koa + driver baseline, then a 1,000-artifact
# commit (approve → committed) against raw driver writes of the same documents, then MCP
# `tools/call search` against `POST /artifacts/search`, then an external MCP tool call through the
# platform against a direct SDK client call, then a burst of 2,000 writes and their events (issue #21), then
# bulk indexing (write → semantically searchable; batched against one workflow per revision and the embedder
# alone), then task-agent invocation (apply mode) against a plain read, then hybrid search while indexing lags, then
# bulk import (issue #33: 10,000 documents against raw driver inserts, searchable by meaning meanwhile, 100 PDFs),
# then a view's results (issue #36) against GET /artifacts of one container, and that baseline again while 200 results
# streams are open (bench/views.ts).
# Then issue #31's table at scale (bench/scale.ts): an empty platform and one seeded with BENCH_SCALE_ARTIFACTS
# artifacts (default 100,000 in 1,000 workspaces, one of them with 20,000; BENCH_SCALE_ARTIFACTS=5000 for a quick
# run, BENCH_SCALE=0 to leave it out), each in the `npm start` layout (worker and API as processes, MiniLM) and the
# lean one; BENCH_SOAK=1 adds the 10-minute soak on the seeded platform (bench/soak.ts, BENCH_SOAK_MINUTES).
# Each records its rows of issues #23 and #31 (bench/goals.ts); bench/summary.ts prints them together, with their goals.
# The engine alone (choosing a FerretDB backend): EMBEDDED_MONGO_BACKEND=sqlite|postgresql node --import tsx bench/engine-load.ts
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-installed.sh
mkdir -p .dev/bench-results
export BENCH_GOALS_FILE=".dev/bench-results/goals-$(date -u +%Y%m%dT%H%M%SZ).jsonl"
node --import tsx bench/artifacts.ts "$@"
node --import tsx bench/commit.ts
node --import tsx bench/mcp-search.ts
node --import tsx bench/mcp-client.ts
node --import tsx bench/event-burst.ts
node --import tsx bench/indexing-load.ts
node --import tsx bench/invoke.ts
node --import tsx bench/indexing-lag.ts
node --import tsx bench/import.ts
node --import tsx bench/relay.ts
node --import tsx bench/views.ts
if [ "${BENCH_SCALE:-1}" != 0 ]; then BENCH_SCALE_ARTIFACTS="${BENCH_SCALE_ARTIFACTS:-100000}" node --import tsx bench/scale.ts; fi
if [ "${BENCH_SOAK:-0}" = 1 ]; then BENCH_SOAK_ARTIFACTS="${BENCH_SOAK_ARTIFACTS:-${BENCH_SCALE_ARTIFACTS:-100000}}" node --import tsx bench/soak.ts; fi
exec node --import tsx bench/summary.ts
