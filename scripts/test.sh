#!/usr/bin/env bash
# Runs every module's tests, integration included, one module at a time.
# A module that needs no other module of this repository is tested with
# GOWORK=off, which proves it builds from its own go.mod alone.
#
# Each module's verbose output goes to a log: the package lines are printed,
# with how many subtests passed on each database backend (PostgreSQL, SQLite),
# and the whole log when the module fails.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/goenv.sh"
cd "$(git rev-parse --show-toplevel)"

# go test's default 10-minute limit is too tight for e2e on a loaded 2-core machine.
flags=(-count=1 -timeout=40m "${@}")
[ "${RACE:-1}" = 1 ] && flags+=(-race)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
failed=()
for mod in $(git ls-files '*go.mod' | xargs -n1 dirname | sort); do
  gowork=auto
  grep -q 'github.com/adsnap/svc/' <(grep -v '^module ' "$mod/go.mod") || gowork=off
  echo "=== $mod (GOWORK=$gowork)"
  log="$logs/${mod//\//_}.log"
  if (cd "$mod" && GOWORK=$gowork go test -v "${flags[@]}" ./...) >"$log" 2>&1; then
    grep -E '^(ok|FAIL|\?) ' "$log" | grep -v 'no test files' || true
  else
    cat "$log"
    failed+=("$mod")
  fi
  pg=$(grep -cE -- '--- PASS: [^ ]+/postgres( |$)' "$log" || true)
  sq=$(grep -cE -- '--- PASS: [^ ]+/sqlite( |$)' "$log" || true)
  if [ "$pg" != 0 ] || [ "$sq" != 0 ]; then
    echo "    $mod: $pg subtests passed on PostgreSQL, $sq on SQLite"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED modules: ${failed[*]}" >&2
  exit 1
fi
echo "all modules passed"
