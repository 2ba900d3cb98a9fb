#!/usr/bin/env bash
# gofmt check, go vet and staticcheck in every module.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/goenv.sh"
cd "$(git rev-parse --show-toplevel)"
status=0
unformatted=$(git ls-files '*.go' | xargs -r gofmt -l)
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2
  echo "$unformatted" >&2
  status=1
fi
# staticcheck at the version internal/tools/go.mod pins (a `tool` line;
# honnef.co/go/tools v0.8.2), built once into .cache/bin.
staticcheck=$PWD/.cache/bin/staticcheck
mkdir -p .cache/bin
(cd internal/tools && GOWORK=off go build -o "$staticcheck" honnef.co/go/tools/cmd/staticcheck)
for mod in $(git ls-files '*go.mod' | xargs -n1 dirname | sort); do
  # A module outside go.work, if one is ever added, is checked on its own.
  gowork=auto
  grep -qE "^[[:space:]]*\./$mod\$" go.work || gowork=off
  echo "=== go vet $mod"
  (cd "$mod" && GOWORK=$gowork go vet ./...) || status=1
  echo "=== staticcheck $mod"
  (cd "$mod" && GOWORK=$gowork "$staticcheck" ./...) || status=1
done
exit $status
