#!/usr/bin/env bash
# Runs each fuzz target of the workspace for FUZZTIME (default 10s), one
# target at a time (`go test -fuzz` takes one target per run). `make test`
# calls it after the unit and integration tests; a finding fails the run and
# leaves the failing input under the package's testdata/fuzz/ to commit as a
# regression case.
#
#   scripts/fuzz.sh                 # every target, 10 s each
#   FUZZTIME=10m scripts/fuzz.sh    # the long run
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/goenv.sh"
cd "$(git rev-parse --show-toplevel)"

fuzztime=${FUZZTIME:-10s}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# module directory, package, target
targets=(
  "api-server ./internal/query FuzzParse"
  "api-server ./internal/query FuzzInspect"
  "api-server ./internal/query FuzzGuard"
  "api-server ./internal/snapshot FuzzValidate"
  "api-server ./internal/snapshot FuzzValidDecimal"
  "api-server ./internal/query FuzzValidID"
  "api-server ./internal/accesslog FuzzAccessLineMatchesSlog"
  "api-server ./internal/wirejson FuzzMatchesEncodingJSON"
  "keys-admin ./apikey FuzzValidate"
  "keys-admin ./apikey FuzzKeyRoundTrip"
)
for t in "${targets[@]}"; do
  read -r mod pkg name <<<"$t"
  echo "=== fuzz $mod $pkg $name ($fuzztime)"
  # -parallel 1: one worker, the machine is shared; -run '^$': no unit tests.
  # -fuzzminimizetime 10x: at most 10 runs to shrink an input. By default
  # the engine spends up to a minute shrinking each new interesting input:
  # FuzzValidate (two imports an input, about 30 ms) spent its whole 10 s
  # shrinking mutations of its 13 KB seed and ran 5 counted inputs; with
  # this it runs about 300.
  run() { (cd "$mod" && go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 10x -parallel 1 "$pkg") >"$log" 2>&1; }
  ok=0
  run && ok=1
  # Go's fuzzing coordinator can give up on a worker that a loaded machine
  # starves ("context deadline exceeded", no failing input written): that is
  # no finding, so such a run is tried once more. A finding always fails.
  if [ $ok = 0 ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
    echo "fuzz $name: the fuzzing engine timed out a worker without a finding; once more" >&2
    run && ok=1
  fi
  if [ $ok = 1 ]; then
    grep -v '^fuzz: elapsed' "$log" | tail -n 2
    grep '^fuzz: elapsed' "$log" | tail -n 1
  else
    cat "$log"
    echo "fuzz $name failed (a failing input is kept under $mod/${pkg#./}/testdata/fuzz/$name)" >&2
    exit 1
  fi
done
echo "all fuzz targets passed"
