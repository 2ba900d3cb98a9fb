#!/usr/bin/env bash
# A contributor's first hour (issue 32): the repository, cloned afresh, works
# with plain go commands and gopls and nothing set up first.
#
#   scripts/fresh-clone-check.sh [COMMIT]   # default HEAD; .ci/run runs it
#
# It clones COMMIT into a directory of its own and, with an environment that
# is empty apart from PATH, HOME (a directory of its own without any Go
# configuration, so that no `go env -w` setting helps either) and the Go
# caches (GOMODCACHE, GOCACHE: the machine's, so that a warm run downloads
# nothing), runs in every module (git ls-files '*go.mod'):
#
#   go vet ./...  and  go build ./...
#
# and then gopls check on one file of each module, which must report no
# error. gopls is pinned here (GOPLS_VERSION) and installed by version from
# the module proxy, built from its own go.mod (checked against the Go
# checksum database), into .cache/gopls/<version>/ once; internal/tools/README.md
# says why it is not a tool of that module. Nothing of the caller's
# environment (GOPROXY, GONOSUMDB, GOFLAGS, GOWORK, GOTOOLCHAIN) reaches the
# checks: the go command takes its toolchain from go.work, its sibling
# modules from go.work's replacements, the rest from the module cache or the
# default proxy.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/goenv.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$root" rev-parse --verify "${1:-HEAD}^{commit}")
GOPLS_VERSION=v0.23.0

# The clone is made at the same path each run (under this work tree's
# .cache/, which git ignores), so that the build cache, whose entries name
# source paths, serves a second run; it is removed at the end.
tmp=${FRESH_CLONE_DIR:-$root/.cache/fresh-clone}
case $tmp in /*) ;; *) tmp=$PWD/$tmp ;; esac
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

# gopls, built with the caller's environment (a tool, not the subject).
gopls=$root/.cache/gopls/$GOPLS_VERSION/gopls
if [ ! -x "$gopls" ]; then
  echo "=== go install golang.org/x/tools/gopls@$GOPLS_VERSION"
  mkdir -p "$(dirname "$gopls")"
  (cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod GOBIN="$(dirname "$gopls")" go install "golang.org/x/tools/gopls@$GOPLS_VERSION")
fi
modcache=$(go env GOMODCACHE)
gocache=$(go env GOCACHE)

echo "=== git clone ($(git -C "$root" rev-parse --short "$commit")) into $tmp/repo"
git clone --quiet --no-checkout "$root" "$tmp/repo"
git -C "$tmp/repo" checkout --quiet --detach "$commit"
# HOME holds nothing but gopls' own cache, kept between runs (its
# configuration directory, where `go env -w` would write, is emptied).
home=$root/.cache/fresh-clone-home
rm -rf "$home/.config"
mkdir -p "$home"
fresh() { # runs "$@" with nothing but PATH, HOME and the Go caches
  env -i PATH="$PATH" HOME="$home" GOMODCACHE="$modcache" GOCACHE="$gocache" "$@"
}

cd "$tmp/repo"
failed=()
files=()
for mod in $(git ls-files '*go.mod' | xargs -n1 dirname | sort); do
  echo "=== $mod: go vet ./... && go build ./..."
  start=$SECONDS
  if ! (cd "$mod" && fresh go vet ./... && fresh go build ./...); then
    failed+=("$mod")
  fi
  echo "    $((SECONDS - start)) s"
  # One file of the module for gopls: its doc.go, else its first Go file.
  f=$(git ls-files -- "$mod/doc.go" | head -n 1)
  [ -n "$f" ] || f=$(git ls-files -- "$mod/*.go" | grep -v '_test\.go$' | head -n 1)
  [ -n "$f" ] && files+=("$f")
done

echo "=== gopls $GOPLS_VERSION check ${files[*]}"
# gopls check exits 0 whatever it finds: every line it prints at severity
# error (a diagnostic, or a workspace it could not load) is a failure.
start=$SECONDS
out=$(fresh "$gopls" check -severity=error "${files[@]}" 2>&1) || failed+=("gopls (exit $?)")
echo "    $((SECONDS - start)) s"
if [ -n "$out" ]; then
  echo "$out"
  failed+=("gopls")
fi
# A go command of the checks that wrote to a tracked file (go.work.sum, a
# go.sum) would leave a contributor's clone modified.
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  git status --short --untracked-files=no
  failed+=("the checks changed tracked files")
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "fresh-clone-check FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fresh-clone-check passed: go vet, go build in every module, gopls on ${#files[@]} files, with nothing set"
