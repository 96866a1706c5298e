#!/usr/bin/env bash
# Installs Chromium for the browser tests (test/web/, driven by playwright-core through test/helpers/browser.ts)
# from Debian's packages: `apt-get install chromium` when run as root. No browser is downloaded from anywhere
# else (playwright-core never downloads one). CHROMIUM_PATH names another executable and skips the install.
# Idempotent and quiet when the browser is in place.
set -euo pipefail
say() { echo "[setup] $*" >&2; }

if [ -n "${CHROMIUM_PATH:-}" ]; then
  [ -x "$CHROMIUM_PATH" ] || say "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable: the browser tests will fail"
  exit 0
fi
# The console's type badges use emoji; Debian's Chromium has no emoji font of its own, and screenshots
# (test/web/screenshots.test.ts) would show empty boxes without one.
have_emoji_font() { [ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]; }
if [ -x /usr/bin/chromium ] && have_emoji_font; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  say "chromium or its emoji font is missing and this is not root: run \`sudo apt-get install -y --no-install-recommends chromium fonts-noto-color-emoji\`, or set CHROMIUM_PATH"
  exit 0
fi
say "installing chromium and an emoji font (Debian packages) for the browser tests"
export DEBIAN_FRONTEND=noninteractive
install() { apt-get install -y -qq --no-install-recommends chromium fonts-noto-color-emoji >/dev/null 2>&1; }
if ! install; then
  # A stale package list (a security update replaced the version it names): refresh it once and retry.
  apt-get update -qq >/dev/null 2>&1 || true
  install || say "could not install chromium: the browser tests will fail"
fi
