#!/usr/bin/env bash
# gofmt check and go vet in every module.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
status=0
unformatted=$(git ls-files '*.go' | xargs -r gofmt -l)
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2
  echo "$unformatted" >&2
  status=1
fi
for mod in $(git ls-files '*go.mod' | xargs -n1 dirname | sort); do
  echo "=== go vet $mod"
  # A module outside go.work (internal/tools) is vetted on its own.
  gowork=auto
  grep -qE "^[[:space:]]*\./$mod\$" go.work || gowork=off
  (cd "$mod" && GOWORK=$gowork go vet ./...) || status=1
done
exit $status
