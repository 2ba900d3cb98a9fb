#!/usr/bin/env bash
# Runs every module's tests, integration included, one module at a time.
# A module that needs no other module of this repository is tested with
# GOWORK=off, which proves it builds from its own go.mod alone.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

flags=(-count=1 "${@}")
[ "${RACE:-1}" = 1 ] && flags+=(-race)
failed=()
for mod in $(git ls-files '*go.mod' | xargs -n1 dirname | sort); do
  gowork=auto
  grep -q 'github.com/adsnap/svc/' <(grep -v '^module ' "$mod/go.mod") || gowork=off
  echo "=== $mod (GOWORK=$gowork)"
  if ! (cd "$mod" && GOWORK=$gowork go test "${flags[@]}" ./...); then
    failed+=("$mod")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED modules: ${failed[*]}" >&2
  exit 1
fi
echo "all modules passed"
