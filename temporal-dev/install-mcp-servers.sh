#!/usr/bin/env bash
# Installs what the MCP tests spawn over stdio: `uv`/`uvx` (PyPI wheel, into $PLATFORM_DEV_DIR/uv/venv,
# default .dev/), the Python server mcp-server-time, pre-installed as a uv tool so that
# `uvx mcp-server-time==$MCP_SERVER_TIME_VERSION` starts it with no resolution and no network, and a
# uv-managed environment with the official Python SDK (`mcp`) that the tests run as an MCP client
# (test/fixtures/python-oauth-client.py, in $PLATFORM_DEV_DIR/uv/mcp-client).
# .dev/bin/uv and .dev/bin/uvx are small wrappers that pin uv's cache, tool dir and interpreter under .dev/:
# a stdio server is spawned with only HOME, LOGNAME, PATH, SHELL, TERM and USER, so nothing may depend on
# the caller's UV_* variables, on HOME, or on which python3 comes first on PATH (uv would otherwise try
# to download a Python, which cannot be fetched here).
# Also the MCP reference server of the 2025 line (@modelcontextprotocol/server-everything 2025.7.1 on SDK
# 1.13.3, protocol 2025-06-18 at most) in $PLATFORM_DEV_DIR/npm/server-everything-2025, for the gateway
# test matrix (test/mcp/gateway-matrix.test.ts): beside the project's node_modules, not in it, since its
# bin has the same name as server-everything 2026.8.31's and would take its place there.
# Idempotent and quiet when everything is in place. PyPI and the npm registry are used.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dev=${PLATFORM_DEV_DIR:-$root/.dev}
mkdir -p "$dev/bin"
dev=$(cd "$dev" && pwd)

UV_VERSION=0.13.9
MCP_SERVER_TIME_VERSION=2026.10.19

uvdir=$dev/uv
say() { echo "[setup] $*" >&2; }

install_uv() {
  local bin="$uvdir/venv/bin/uv"
  # Output captured first: `cmd | grep -q` fails under pipefail when grep exits early (SIGPIPE).
  if [ -x "$bin" ] && [[ "$("$bin" --version 2>/dev/null)" == "uv $UV_VERSION"* ]]; then
    return 0
  fi
  say "installing uv $UV_VERSION (PyPI) into $uvdir/venv"
  rm -rf "$uvdir/venv"
  python3 -m venv "$uvdir/venv" >&2
  "$uvdir/venv/bin/pip" install --quiet --disable-pip-version-check "uv==$UV_VERSION" >&2
}

# Wrappers rather than symlinks: the settings must hold in the spawned server's minimal environment.
write_wrapper() {
  local name=$1 target="$dev/bin/$1" tmp
  tmp=$(mktemp "$dev/bin/.$name.XXXXXX")
  cat >"$tmp" <<EOF
#!/bin/sh
# Written by temporal-dev/install-mcp-servers.sh: uv $UV_VERSION with its state under $uvdir.
UV_CACHE_DIR='$uvdir/cache' UV_TOOL_DIR='$uvdir/tools' UV_TOOL_BIN_DIR='$uvdir/bin'
UV_PYTHON='$uvdir/venv/bin/python3' UV_PYTHON_DOWNLOADS=never
export UV_CACHE_DIR UV_TOOL_DIR UV_TOOL_BIN_DIR UV_PYTHON UV_PYTHON_DOWNLOADS
exec '$uvdir/venv/bin/$name' "\$@"
EOF
  chmod 755 "$tmp"
  if [ -f "$target" ] && [ ! -L "$target" ] && cmp -s "$tmp" "$target"; then
    rm -f "$tmp"
  else
    mv -f "$tmp" "$target"
  fi
}

# A uv tool (not just uvx's cache): `uvx NAME==VERSION` then runs the installed tool without asking the
# index, whereas a cached ephemeral environment is only reused after a fresh resolution (or --offline).
install_mcp_server_time() {
  local env="$uvdir/tools/mcp-server-time" stamp="uv $UV_VERSION, mcp-server-time $MCP_SERVER_TIME_VERSION"
  # The stamp is written inside the tool's environment once the check below passed (a reinstall removes it).
  if [ "$(cat "$env/.setup-checked" 2>/dev/null)" = "$stamp" ] && "$env/bin/python" -c '' 2>/dev/null; then
    return 0
  fi
  say "installing mcp-server-time $MCP_SERVER_TIME_VERSION (PyPI) as a uv tool"
  # No --compile-bytecode: it is recorded in the tool's receipt, and uvx (without it) would then not
  # reuse the tool. Byte-compiled separately instead (the server's imports take ~2 s even so).
  "$dev/bin/uv" tool install --quiet --force "mcp-server-time==$MCP_SERVER_TIME_VERSION" >&2
  "$env/bin/python" -m compileall -q "$env/lib" >/dev/null 2>&1 || true
  # The check the tests rely on: starts from the installed tool with the index unreachable.
  local log
  if ! log=$("$dev/bin/uvx" --offline --verbose "mcp-server-time==$MCP_SERVER_TIME_VERSION" --help 2>&1 >/dev/null) \
    || [[ "$log" != *"Using existing tool \`mcp-server-time\`"* ]]; then
    say "uvx does not run the installed mcp-server-time tool:"; echo "$log" | tail -20 >&2; exit 1
  fi
  echo "$stamp" >"$env/.setup-checked"
}

# The official Python SDK as a client (the tests run its OAuth flow against the platform): a plain
# environment, not a tool, since the tests run a script of their own with its python.
MCP_CLIENT_SDK_VERSION=2.3.0
install_mcp_client() {
  local env="$uvdir/mcp-client" stamp="uv $UV_VERSION, mcp $MCP_CLIENT_SDK_VERSION"
  if [ "$(cat "$env/.setup-checked" 2>/dev/null)" = "$stamp" ] && "$env/bin/python" -c '' 2>/dev/null; then
    return 0
  fi
  say "installing the Python MCP SDK (mcp $MCP_CLIENT_SDK_VERSION, PyPI) into $env"
  rm -rf "$env"
  "$dev/bin/uv" venv --quiet "$env" >&2
  "$dev/bin/uv" pip install --quiet --python "$env/bin/python" --compile-bytecode "mcp==$MCP_CLIENT_SDK_VERSION" >&2
  local got
  if ! got=$("$env/bin/python" -c 'import importlib.metadata as m, mcp.client.auth, mcp.client.streamable_http; print(m.version("mcp"))' 2>&1) \
    || [ "$got" != "$MCP_CLIENT_SDK_VERSION" ]; then
    say "the mcp-client environment does not import the SDK's OAuth client:"; echo "$got" | tail -20 >&2; exit 1
  fi
  echo "$stamp" >"$env/.setup-checked"
}

# Exact versions, and the SDK pinned below what the server's own range would resolve to today (1.32,
# which speaks 2025-11-25): the point is a server that knows no revision after 2025-06-18.
EVERYTHING_2025_VERSION=2025.7.1
EVERYTHING_2025_SDK=1.13.3
install_everything_2025() {
  local dir="$dev/npm/server-everything-2025" stamp="server-everything $EVERYTHING_2025_VERSION, sdk $EVERYTHING_2025_SDK"
  if [ "$(cat "$dir/.setup-checked" 2>/dev/null)" = "$stamp" ] && [ -f "$dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js" ]; then
    return 0
  fi
  say "installing @modelcontextprotocol/server-everything $EVERYTHING_2025_VERSION (npm) into $dir"
  rm -rf "$dir"
  mkdir -p "$dir"
  printf '{\n  "name": "server-everything-2025",\n  "private": true,\n  "dependencies": { "@modelcontextprotocol/server-everything": "%s" },\n  "overrides": { "@modelcontextprotocol/sdk": "%s" }\n}\n' \
    "$EVERYTHING_2025_VERSION" "$EVERYTHING_2025_SDK" >"$dir/package.json"
  (cd "$dir" && npm install --silent --no-audit --no-fund --ignore-scripts >&2)
  local got
  got=$(node -p 'require(process.argv[1]).version' "$dir/node_modules/@modelcontextprotocol/sdk/package.json" 2>&1) || true
  if [ "$got" != "$EVERYTHING_2025_SDK" ]; then
    say "server-everything $EVERYTHING_2025_VERSION did not get SDK $EVERYTHING_2025_SDK (got: $got)"; exit 1
  fi
  echo "$stamp" >"$dir/.setup-checked"
}

install_uv
write_wrapper uv
write_wrapper uvx
install_mcp_server_time
install_mcp_client
install_everything_2025
