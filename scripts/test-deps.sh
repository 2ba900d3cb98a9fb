#!/usr/bin/env bash
# Installs what the tests need beyond Go, PostgreSQL and Redis: Debian's
# Chromium (and its driver package) for the browser test of the "Developer
# keys" page (e2e/keyspage_test.go), systemd's systemd-analyze (it verifies
# deploy/systemd/svc-api.service in e2e's TestDeployFiles; no running systemd
# needed), and HAProxy and redis-tools
# (redis-cli --cluster) for the scale group (e2e/scale_test.go), which also
# runs PostgreSQL's own server programs (initdb, pg_ctl, pg_basebackup from
# the postgresql package services.sh relies on). Does nothing when they are
# installed. Runs `apt-get update` only when the package lists do not know
# a package it needs.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || need+=(haproxy)
command -v redis-cli >/dev/null 2>&1 || need+=(redis-tools)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "test-deps.sh: no apt-get here; install ${need[*]} yourself (chromium on PATH, or set SVC_CHROMIUM)." >&2
  exit 1
fi
sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
known=1
for p in "${need[@]}"; do
  apt-cache show "$p" >/dev/null 2>&1 || known=0
done
if [ "$known" = 0 ]; then
  echo "test-deps.sh: apt-get update" >&2
  "${sudo[@]}" apt-get update -qq
fi
echo "test-deps.sh: installing ${need[*]} (browser test, scale group)" >&2
if ! "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; then
  # Stale package lists name files the mirror no longer has: refresh once.
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
command -v chromium >/dev/null 2>&1 && command -v haproxy >/dev/null 2>&1
