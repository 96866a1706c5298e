#!/usr/bin/env bash
# The MCP Inspector's CLI against a running platform:
#   PLATFORM_TOKEN=<JWT or pk_ key> npm run mcp:inspect -- --method tools/list
#   PLATFORM_TOKEN=… npm run mcp:inspect -- --method tools/call --tool-name search --tool-arg query=flutter
# MCP_URL defaults to http://127.0.0.1:8080/mcp. The CLI is the maintained @modelcontextprotocol/inspector
# (a dev dependency, run from node_modules, so nothing is downloaded): its launcher's `--cli` mode, the
# same as `npx @modelcontextprotocol/inspector --cli <url> …` from any folder (docs/mcp-clients.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
: "${PLATFORM_TOKEN:?set PLATFORM_TOKEN to a bearer token (a JWT from /auth/login, or an API key)}"
url="${MCP_URL:-http://127.0.0.1:8080/mcp}"
exec node "$root/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js" --cli "$url" \
  --transport http --header "Authorization: Bearer $PLATFORM_TOKEN" "$@"
