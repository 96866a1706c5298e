#!/usr/bin/env bash
# Installs Temporal's time-skipping test server (the Java SDK's io.temporal:temporal-test-server, from
# Maven Central) under $PLATFORM_DEV_DIR (default .dev/): its jars in test-server/<version>/lib and a
# launcher, bin/temporal-test-server, that test/workflows/ hands to @temporalio/testing's
# TestWorkflowEnvironment.createTimeSkipping (server.executable: existing-path), so that nothing is
# downloaded when the tests run. The SDK starts it as `temporal-test-server <port>`.
# Needs Java 17 and Maven (apt-get install openjdk-17-jre-headless maven, when run as root).
# Idempotent: skipped when the pinned version is already there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dev=${PLATFORM_DEV_DIR:-$root/.dev}
mkdir -p "$dev/bin"

TEMPORAL_TEST_SERVER_VERSION=1.31.0

say() { echo "[temporal-dev] $*" >&2; }

bin="$dev/bin/temporal-test-server"
home="$dev/test-server/$TEMPORAL_TEST_SERVER_VERSION"
if [ -x "$bin" ] && [ -f "$home/lib/temporal-test-server-$TEMPORAL_TEST_SERVER_VERSION.jar" ] && grep -q "$home" "$bin" && grep -q "exec java" "$bin" && grep -q "parent=" "$bin"; then
  exit 0
fi

if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing Java 17 and Maven (Debian packages) for the time-skipping test server"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jre-headless maven >&2 \
      || { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openjdk-17-jre-headless maven >&2; }
  else
    say "the time-skipping test server needs Java 17 and Maven: run 'sudo apt-get install -y openjdk-17-jre-headless maven' once"
    exit 1
  fi
fi

say "installing Temporal's time-skipping test server $TEMPORAL_TEST_SERVER_VERSION (Maven Central) into $home"
rm -rf "$home.partial"
mkdir -p "$home.partial"
mvn --batch-mode --quiet --file "$here/test-server/pom.xml" \
  -Dmaven.repo.local="$dev/build/m2" \
  -Dtemporal.test.server.version="$TEMPORAL_TEST_SERVER_VERSION" \
  -Dstyle.color=never dependency:copy-dependencies -DoutputDirectory="$home.partial/lib" -DincludeScope=runtime >&2
rm -rf "$home"
mv "$home.partial" "$home"
cat >"$bin" <<LAUNCHER
#!/bin/sh
# Temporal's time-skipping test server $TEMPORAL_TEST_SERVER_VERSION (temporal-dev/install-test-server.sh): temporal-test-server <port>
# The server is this process (exec): the SDK's teardown kills it. A watcher ends it too if the process
# that started it dies without a teardown (a crash), so that no server is left behind.
self=\$\$
parent=\$PPID
(
  while kill -0 \$parent 2>/dev/null && kill -0 \$self 2>/dev/null; do sleep 1; done
  kill \$self 2>/dev/null
) </dev/null >/dev/null 2>&1 &
exec java -Xms64m -Xmx512m -cp '$home/lib/*' io.temporal.testserver.TestServer "\$@"
LAUNCHER
chmod +x "$bin"
say "installed $bin"
