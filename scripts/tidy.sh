#!/usr/bin/env bash
# make tidy [MODULES="api-server svc-cli"]: `go mod tidy` in each module (all
# by default) with GOWORK=off, as the module builds for a user: its siblings
# at the versions its go.mod requires, from a proxy directory built from the
# tree (make proxy), with a private module cache so that no stale copy of a
# sibling version is read. The siblings' go.sum lines are removed afterwards:
# their hashes change with the tree and are never committed (RELEASING.md).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/goenv.sh"
cd "$(git rev-parse --show-toplevel)"
root=$PWD
mods=${*:-$(git ls-files '*go.mod' | xargs -n1 dirname | sort)}
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
(cd internal/tools && GOWORK=off go run ./cmd/modproxy -root "$root" -out "$tmp/proxy")
usual=$(go env GOPROXY | tr ',' '\n' | grep -v '^file://' | paste -sd, -)
cache=$(go env GOMODCACHE)/cache/download
export GOWORK=off GONOSUMDB=github.com/adsnap GOMODCACHE=$tmp/modcache
export GOPROXY="file://$tmp/proxy,file://$cache,$usual"
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-modcacherw"
for m in $mods; do
  echo "=== go mod tidy in $m"
  touch "$m/go.sum"
  cat "$tmp/proxy/go.sum" >>"$m/go.sum"
  (cd "$m" && go mod tidy)
  sed -i '/^github\.com\/adsnap\/svc\//d' "$m/go.sum"
  [ -s "$m/go.sum" ] || rm -f "$m/go.sum"
done
