#!/usr/bin/env bash
# Installs what a fresh clone lacks: npm packages (when package-lock.json is newer than the install),
# the embedded engines (temporal-dev/install.sh), Temporal's time-skipping test server for the workflow tests
# (temporal-dev/install-test-server.sh), uv and the MCP test servers (temporal-dev/install-mcp-servers.sh)
# bubblewrap for the stdio sandbox (temporal-dev/install-sandbox.sh), Chromium for the browser tests
# (temporal-dev/install-browser.sh), ffmpeg for stream recording (temporal-dev/install-media.sh) and the embedding model (scripts/install-model.sh).
# Each step is idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[setup] installing npm packages" >&2
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund >&2
fi
bash temporal-dev/install.sh
bash temporal-dev/install-test-server.sh
bash temporal-dev/install-mcp-servers.sh
bash temporal-dev/install-sandbox.sh
bash temporal-dev/install-browser.sh
bash temporal-dev/install-media.sh
bash scripts/install-model.sh
