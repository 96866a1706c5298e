#!/usr/bin/env bash
# Installs bubblewrap, the sandbox every stdio MCP server runs in (src/stdio-servers/sandbox.ts), from
# Debian's packages: `apt-get install` when run as root, else the package unpacked into $PLATFORM_DEV_DIR/bin
# (default .dev/). Also checks the other tools the sandbox uses (prlimit, setpriv: util-linux).
# Idempotent and quiet when everything is in place. Only Debian's package archive is used.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dev=${PLATFORM_DEV_DIR:-$root/.dev}
say() { echo "[setup] $*" >&2; }

for tool in prlimit setpriv; do
  command -v "$tool" >/dev/null || { say "$tool (util-linux) is missing: stdio MCP servers will stay off"; }
done
if command -v bwrap >/dev/null || [ -x "$dev/bin/bwrap" ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ]; then
  say "installing bubblewrap (Debian package)"
  if ! apt-get install -y -qq bubblewrap >/dev/null 2>&1; then
    apt-get update -qq >/dev/null 2>&1 || true
    apt-get install -y -qq bubblewrap >/dev/null 2>&1 || say "could not install bubblewrap: stdio MCP servers will stay off"
  fi
  exit 0
fi
say "unpacking bubblewrap (Debian package) into $dev/bin"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if (cd "$tmp" && apt-get download bubblewrap >/dev/null 2>&1); then
  dpkg-deb -x "$tmp"/bubblewrap_*.deb "$tmp/root"
  mkdir -p "$dev/bin"
  install -m 755 "$tmp/root/usr/bin/bwrap" "$dev/bin/bwrap"
else
  say "could not download bubblewrap: stdio MCP servers will stay off"
fi
