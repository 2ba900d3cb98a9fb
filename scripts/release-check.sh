#!/usr/bin/env bash
# make release-check [MODULES="sdk-go svc-cli"]: every released module (those of
# versions.yaml, or the ones named) alone, as `go get` and `go install` would
# see it:
#
#   1. the repository's own rules: no sibling required at v0.0.0, no replace
#      of a sibling in a go.mod (go.work replaces only a sibling version with
#      the sibling's directory), no committed go.sum line of a sibling (their
#      hashes change with the tree; see RELEASING.md);
#   2. a module proxy directory built from the tree (make proxy): each module
#      at its versions.yaml version, and every older sibling version a go.mod
#      still requires, from the git commit that released it;
#   3. for each module, its git-tracked files copied out of the repository,
#      its go.sum completed with the proxy's hashes of exactly those zips, and
#      `go build`, `go vet`, `go test -short` there with GOWORK=off, against
#      the proxy and a private module cache (a cached copy of an earlier build
#      of the same version is never used);
#   4. for sdk-go, keys-admin and svc-mcp: apidiff against the API recorded by
#      the last `make release` (api/<module>/vX.Y.Z.export); an incompatible
#      change fails unless versions.yaml has a new major version.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/goenv.sh"
cd "$(git rev-parse --show-toplevel)"
root=$PWD
public="sdk-go keys-admin svc-mcp"

all=$(awk '/^modules:/ { on = 1; next } on && /^  [a-z0-9-]+: v/ { sub(":", "", $1); print $1 }' versions.yaml)
mods=${*:-$all}
for m in $mods; do
  grep -qx "$m" <<<"$all" || { echo "release-check: $m is not a module of versions.yaml" >&2; exit 2; }
done
version() { awk -v m="$1:" '$1 == m { print $2 }' versions.yaml; }

failed=()
fail() { echo "FAIL: $*" >&2; failed+=("$1"); }

echo "=== repository rules"
if grep -nE 'github\.com/adsnap/svc/[a-z0-9/-]+ v0\.0\.0' $(git ls-files '*go.mod' go.work); then
  fail "rules: a sibling is required at v0.0.0; require the version of versions.yaml"
fi
for f in $(git ls-files '*go.mod'); do
  if grep -qE 'github\.com/adsnap/svc/[^ ]*( v[^ ]+)?[[:space:]]*=>' "$f"; then
    fail "rules: $f replaces a sibling module"
  fi
done
# go.work, which no user of a released module reads, replaces sibling
# versions with their own directories and nothing else (make test's
# TestWorkspaceReplacesEverySibling checks them against the go.mod files).
if grep -E 'github\.com/adsnap/svc/[^ ]*( v[^ ]+)?[[:space:]]*=>' go.work |
  grep -vE '^[[:space:]]*(replace[[:space:]]+)?github\.com/adsnap/svc/([a-z0-9-]+) v[0-9]+\.[0-9]+\.[0-9]+ => \./\2[[:space:]]*$'; then
  fail "rules: go.work replaces a sibling with something other than its own directory at a version"
fi
if git grep -n '^github\.com/adsnap/svc/' HEAD -- '*go.sum' 'go.work.sum'; then
  fail "rules: a go.sum or go.work.sum in HEAD records a sibling's hash; delete those lines (see RELEASING.md)"
fi
for m in $all; do
  want=$(version "$m")
  for f in $(git ls-files '*go.mod'); do
    got=$(awk -v p="github.com/adsnap/svc/$m" '$1 == p && $2 ~ /^v/ { print $2 } $1 == "require" && $2 == p { print $3 }' "$f")
    if [ -n "$got" ] && [ "$(printf '%s\n%s\n' "$got" "$want" | sort -V | tail -1)" != "$want" ]; then
      fail "rules: $f requires $m $got, newer than versions.yaml's $want"
    fi
  done
done

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

echo "=== make proxy OUT=$tmp/proxy"
(cd internal/tools && GOWORK=off go run ./cmd/modproxy -root "$root" -out "$tmp/proxy")
(cd internal/tools && GOWORK=off go build -o "$tmp/apidiff" golang.org/x/exp/cmd/apidiff)

# Third-party modules come from the machine's module cache when it has them
# (a file proxy over its download directory), else from the usual proxy; this
# repository's modules only ever from the proxy directory just built.
usual=$(go env GOPROXY | tr ',' '\n' | grep -v '^file://' | paste -sd, -)
cache=$(go env GOMODCACHE)/cache/download
export GOWORK=off
export GOPROXY="file://$tmp/proxy,file://$cache,$usual"
export GONOSUMDB=github.com/adsnap
export GOMODCACHE=$tmp/modcache
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-modcacherw -trimpath"

for m in $mods; do
  v=$(version "$m")
  echo "=== $m $v (GOWORK=off, siblings from the proxy)"
  src=$tmp/src/$m
  mkdir -p "$src"
  git ls-files -z -- "$m/" | while IFS= read -r -d '' f; do
    [ -f "$f" ] || continue
    mkdir -p "$src/$(dirname "${f#"$m"/}")"
    cp "$f" "$src/${f#"$m"/}"
  done
  { [ -f "$m/go.sum" ] && grep -v '^github\.com/adsnap/svc/' "$m/go.sum"; cat "$tmp/proxy/go.sum"; } >"$src/go.sum" || true
  if ! (cd "$src" && go build ./... && go vet ./... && go test -short -count=1 ./...); then
    fail "$m: does not build, vet or pass its short tests alone against the sibling versions its go.mod requires"
    continue
  fi
  case " $public " in *" $m "*) ;; *) continue ;; esac
  exports=("$root"/api/"$m"/v*.export)
  base=$(basename "${exports[0]}" .export)
  if [ ! -f "${exports[0]}" ]; then
    echo "    $m: no released API recorded (api/$m/); make release records it"
  elif [ "${v%%.*}" != "${base%%.*}" ]; then
    echo "    $m: major version $v over released $base: incompatible changes allowed"
  else
    # The value of const Version changes with every release by design; apidiff
    # counts any changed constant as incompatible, so that line is dropped.
    report=$(cd "$src" && "$tmp/apidiff" -m -incompatible "${exports[0]}" "github.com/adsnap/svc/$m" |
      grep -v '^- Version: value changed from ' || true)
    if grep -q '^- ' <<<"$report"; then
      echo "$report" >&2
      fail "$m: incompatible API change against $base without a major version (versions.yaml: $v)"
      continue
    fi
    echo "    $m: API compatible with $base"
  fi
  # make release: record the API of the version being released.
  if [ "${RELEASE_API:-}" = "$m" ]; then
    rm -rf "$root/api/$m"
    mkdir -p "$root/api/$m"
    (cd "$src" && "$tmp/apidiff" -m -w "$root/api/$m/$v.export" "github.com/adsnap/svc/$m")
    echo "    $m: API of $v recorded in api/$m/$v.export"
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "release-check FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "release-check passed:" $mods
