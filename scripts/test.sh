#!/usr/bin/env bash
# Runs every module's tests, integration included. A module that needs no
# other module of this repository is tested with GOWORK=off, which proves it
# builds from its own go.mod alone.
#
# e2e runs beside the other modules, which run one at a time, and then
# beside TEST_THEN (a command; make test gives scripts/fuzz.sh): most of
# e2e's time is spent waiting (the SPEC's rate limits pace BulkPacing for
# 40 s, a browser, servers starting and draining), about one core in use on
# average, so on 2 cores it overlaps the others' CPU-bound tests. Measured
# on a 2-core machine, one thing at a time: api-server 219 s, e2e 362 s,
# the other modules 185 s, fuzzing about 200 s, make test 16:00; e2e
# beside the modules: e2e 600 s, the modules 474 s. TEST_SERIAL=1 runs
# e2e in line, after the others, then TEST_THEN.
#
# Each module's verbose output goes to a log: the package lines are printed
# with the module's wall time and how many subtests passed on each database
# backend (PostgreSQL, SQLite), and the whole log when the module fails.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/goenv.sh"
cd "$(git rev-parse --show-toplevel)"

# go test's default 10-minute limit is too tight for e2e on a loaded 2-core machine.
flags=(-count=1 -timeout=40m "${@}")
[ "${RACE:-1}" = 1 ] && flags+=(-race)
logs=$(mktemp -d)
bg=
# e2e runs in its own process group (set -m below): a background job of a
# script ignores Ctrl-C, so on any exit the whole group (go test, the test
# binary and what it started) is stopped here.
trap '[ -n "$bg" ] && kill -- "-$bg" 2>/dev/null; rm -rf "$logs"' EXIT
trap 'exit 130' INT TERM

# test MOD: runs MOD's tests into $logs/MOD.log and its exit code and wall
# time into $logs/MOD.rc and $logs/MOD.secs.
test_module() {
  local mod=$1 gowork=auto start=$SECONDS rc=0
  local base="$logs/${mod//\//_}"
  grep -q 'github.com/adsnap/svc/' <(grep -v '^module ' "$mod/go.mod") || gowork=off
  echo "$gowork" >"$base.gowork"
  (cd "$mod" && GOWORK=$gowork go test -v "${flags[@]}" ./...) >"$base.log" 2>&1 || rc=$?
  echo $((SECONDS - start)) >"$base.secs"
  echo $rc >"$base.rc"
}

# report MOD: prints MOD's package lines (its whole log when it failed) and
# returns its exit code.
report() {
  local mod=$1 base="$logs/${1//\//_}"
  echo "=== $mod (GOWORK=$(cat "$base.gowork"), $(cat "$base.secs") s)"
  local rc
  rc=$(cat "$base.rc")
  if [ "$rc" = 0 ]; then
    grep -E '^(ok|FAIL|\?) ' "$base.log" | grep -v 'no test files' || true
  else
    cat "$base.log"
  fi
  local pg sq
  pg=$(grep -cE -- '--- PASS: [^ ]+/postgres( |$)' "$base.log" || true)
  sq=$(grep -cE -- '--- PASS: [^ ]+/sqlite( |$)' "$base.log" || true)
  if [ "$pg" != 0 ] || [ "$sq" != 0 ]; then
    echo "    $mod: $pg subtests passed on PostgreSQL, $sq on SQLite"
  fi
  return "$rc"
}

mods=$(git ls-files '*go.mod' | xargs -n1 dirname | sort)
beside=
if [ "${TEST_SERIAL:-0}" != 1 ] && grep -qx e2e <<<"$mods"; then
  beside=e2e
  echo "=== e2e runs beside the other modules (TEST_SERIAL=1: in line)"
  set -m
  test_module e2e &
  bg=$!
  set +m
fi
failed=()
for mod in $mods; do
  [ "$mod" = "$beside" ] && continue
  test_module "$mod"
  report "$mod" || failed+=("$mod")
done
if [ -n "${TEST_THEN:-}" ]; then
  $TEST_THEN || failed+=("$TEST_THEN")
fi
if [ -n "$beside" ]; then
  wait "$bg" || true
  bg=
  report "$beside" || failed+=("$beside")
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "all modules passed${TEST_THEN:+, and $TEST_THEN}"
