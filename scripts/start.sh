#!/usr/bin/env bash
# `npm start`: install what is missing, start the engines (unless TEMPORAL_ADDRESS / STORE_URI point
# elsewhere), then the worker and the API.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-installed.sh
# The dev server's Web UI decodes payloads through the API's codec server, with the browser's platform
# session (sign in to the console first, at the same host name as the UI: localhost; then, in the UI's
# Codec Server settings, this endpoint as the browser's own with "Include cross-origin credentials", which
# the dev server cannot set). Set either variable (even empty) to change it. The metrics listeners'
# development addresses are added by scripts/start-settings.ts.
api="${PLATFORM_API_URI:-http://localhost:${PORT:-8080}}"
export TEMPORAL_UI_CODEC_ENDPOINT="${TEMPORAL_UI_CODEC_ENDPOINT-${api%/}/codec/session}"
export CODEC_ALLOWED_ORIGINS="${CODEC_ALLOWED_ORIGINS-http://localhost:${TEMPORAL_UI_PORT:-8233},http://127.0.0.1:${TEMPORAL_UI_PORT:-8233}}"
exec node --import tsx scripts/dev.ts
