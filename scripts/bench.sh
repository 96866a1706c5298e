#!/usr/bin/env bash
# `npm run bench`: artifact create, get and search against a raw Koa + driver baseline, then a 1,000-artifact
# commit (approve → committed) against raw driver writes of the same documents, then MCP
# `tools/call search` against `POST /artifacts/search`, then an external MCP tool call through the
# platform against a direct SDK client call, then a burst of 2,000 writes and their events (issue #21), then
# bulk indexing (write → semantically searchable; batched against one workflow per revision and the embedder
# alone), then task-agent invocation (apply mode) against a plain read, then hybrid search while indexing lags.
# Each records its rows of issue #23's table (bench/goals.ts); bench/summary.ts prints them together, with their goals.
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
exec node --import tsx bench/summary.ts
