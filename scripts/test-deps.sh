#!/usr/bin/env bash
# Installs what the tests need beyond Go, PostgreSQL and Redis: Debian's
# Chromium (and its driver package) for the browser test of the "Developer
# keys" page (e2e/keyspage_test.go), systemd's systemd-analyze and HAProxy. Does
# nothing when they are installed.
# Runs `apt-get update` only when the package lists do not know chromium.
set -euo pipefail

# systemd-analyze (package systemd) verifies deploy/systemd/svc-api.service
# and haproxy -c checks deploy/haproxy.cfg in e2e's TestDeployFiles; neither
# needs a running service.
for need in systemd-analyze:systemd /usr/sbin/haproxy:haproxy; do
  cmd=${need%%:*} pkg=${need##*:}
  if ! command -v "$cmd" >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    echo "test-deps.sh: installing $pkg (TestDeployFiles)" >&2
    s=(); [ "$(id -u)" = 0 ] || s=(sudo)
    DEBIAN_FRONTEND=noninteractive "${s[@]}" apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null ||
      { "${s[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${s[@]}" apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null; }
  fi
done
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "test-deps.sh: no apt-get here; install Chromium yourself and put 'chromium' on PATH (or set SVC_CHROMIUM)." >&2
  exit 1
fi
sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
if ! apt-cache show chromium >/dev/null 2>&1 || ! apt-cache show chromium-driver >/dev/null 2>&1; then
  echo "test-deps.sh: apt-get update" >&2
  "${sudo[@]}" apt-get update -qq
fi
echo "test-deps.sh: installing chromium and chromium-driver (browser test)" >&2
if ! "${sudo[@]}" apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null; then
  # Stale package lists name files the mirror no longer has: refresh once.
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
fi
command -v chromium >/dev/null 2>&1
