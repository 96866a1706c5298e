#!/usr/bin/env bash
# Installs ffmpeg (with ffprobe) for stream recording (src/media/, the stream content type of issue #36)
# and its tests (test/streams/) from Debian's packages: `apt-get install ffmpeg` when run as root. Nothing
# is downloaded from anywhere else. STREAM_FFMPEG_PATH names another executable and skips the install.
# Idempotent and quiet when ffmpeg is in place.
set -euo pipefail
say() { echo "[setup] $*" >&2; }

if [ -n "${STREAM_FFMPEG_PATH:-}" ]; then
  [ -x "$STREAM_FFMPEG_PATH" ] || command -v "$STREAM_FFMPEG_PATH" >/dev/null 2>&1 ||
    say "STREAM_FFMPEG_PATH=$STREAM_FFMPEG_PATH is not an executable: stream recording will fail"
  exit 0
fi
if command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  say "ffmpeg is missing and this is not root: run \`sudo apt-get install -y --no-install-recommends ffmpeg\`, or set STREAM_FFMPEG_PATH"
  exit 0
fi
say "installing ffmpeg (Debian package) for stream recording"
export DEBIAN_FRONTEND=noninteractive
install() { apt-get install -y -qq --no-install-recommends ffmpeg >/dev/null 2>&1; }
if ! install; then
  # A stale package list (a security update replaced the version it names): refresh it once and retry.
  apt-get update -qq >/dev/null 2>&1 || true
  install || say "could not install ffmpeg: stream recording and its tests will fail"
fi
