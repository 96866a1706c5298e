#!/usr/bin/env bash
# The MCP Inspector's CLI against a running platform:
#   PLATFORM_TOKEN=<JWT or pk_ key> npm run mcp:inspect -- --method tools/list
#   PLATFORM_TOKEN=… npm run mcp:inspect -- --method tools/call --tool-name search --tool-arg query=flutter
# MCP_URL defaults to http://127.0.0.1:8080/mcp. inspector-cli 1.0.3 finds its own package.json
# relative to the working directory, so it runs from its build folder (docs/decisions.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
: "${PLATFORM_TOKEN:?set PLATFORM_TOKEN to a bearer token (a JWT from /auth/login, or an API key)}"
url="${MCP_URL:-http://127.0.0.1:8080/mcp}"
cd "$root/node_modules/@modelcontextprotocol/inspector-cli/build"
exec node index.js "$url" --transport http --header "Authorization: Bearer $PLATFORM_TOKEN" "$@"
