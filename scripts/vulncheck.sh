#!/usr/bin/env bash
# make vulncheck: govulncheck (golang.org/x/vuln, pinned by a `tool` line of
# internal/tools/go.mod) against a local vulnerability database built from the
# golang.org/x/vulndb module that the module proxy serves (the public database
# host cannot be reached from these machines; internal/tools/cmd/vulndb):
#
#   - source mode over every module (git ls-files '*go.mod');
#   - binary mode over every Go binary in bin/ (make build; bin/static/ too when
#     make build-static made it) and in the release archives of dist/ when make
#     release-cli made them;
#   - every binary must name the toolchain of go.work (go version FILE).
#
# A vulnerability that the code reaches (govulncheck's "Your code is
# affected", exit 3) fails it; one only in a module's other packages is shown
# and does not. The binaries are stripped (-s -w): binary mode may then see
# modules, not symbols, and count every vulnerability of a module linked in.
# The database snapshot (the vulndb pseudo-version: its commit and time) is
# printed first and last. VULNDB_VERSION overrides the pinned snapshot.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/goenv.sh"
cd "$(git rev-parse --show-toplevel)"
root=$PWD
# The snapshot: golang.org/x/vulndb at a commit, as the module proxy serves it.
# Move it forward with a newer pseudo-version (go list -m -versions does not
# list pseudo-versions: take the one `go mod download -json golang.org/x/vulndb@latest` reports).
VULNDB_VERSION=${VULNDB_VERSION:-v0.0.0-20261105234957-e22db6528018}

mkdir -p .cache/bin
govulncheck=$root/.cache/bin/govulncheck
(cd internal/tools && GOWORK=off go build -o "$govulncheck" golang.org/x/vuln/cmd/govulncheck)
db=$root/.cache/vulndb/$VULNDB_VERSION
(cd internal/tools && GOWORK=off go run ./cmd/vulndb -version "$VULNDB_VERSION" -out "$db")
dburl=file://$db
toolchain=$(awk '$1 == "toolchain" { print $2 }' go.work)
echo "govulncheck $(cd internal/tools && GOWORK=off go list -m -f '{{.Version}}' golang.org/x/vuln), go $(go env GOVERSION)"

failed=()
# scan LABEL ARGS...: govulncheck ARGS, its exit status judged.
scan() {
  local label=$1 code=0
  shift
  echo "=== govulncheck $label"
  "$govulncheck" -db "$dburl" "$@" || code=$?
  case $code in
  0) ;;
  3) failed+=("$label: reachable vulnerability") ;;
  *) failed+=("$label: govulncheck exit $code") ;;
  esac
}

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
# A released module (versions.yaml) is checked as `go get` and `go install
# …@version` build it, as make release-check does: alone (GOWORK=off), its
# siblings from a proxy directory built from the tree, a private module cache
# (third-party modules from the machine's cache), its go.sum completed with
# the proxy's hashes. The workspace's own build (bin/) is the binaries' part.
released=$(awk '/^modules:/ { on = 1; next } on && /^  [a-z0-9-]+: v/ { sub(":", "", $1); print $1 }' versions.yaml)
(cd internal/tools && GOWORK=off go run ./cmd/modproxy -root "$root" -out "$tmp/proxy")
usual=$(go env GOPROXY | tr ',' '\n' | grep -v '^file://' | paste -sd, -)
cache=$(go env GOMODCACHE)/cache/download
nmod=0
for mod in $(git ls-files '*go.mod' | xargs -n1 dirname | sort); do
  nmod=$((nmod + 1))
  if grep -qx "$mod" <<<"$released"; then
    src=$tmp/src/$mod
    mkdir -p "$src"
    git ls-files -z -- "$mod/" | while IFS= read -r -d '' f; do
      [ -f "$f" ] || continue
      mkdir -p "$src/$(dirname "${f#"$mod"/}")"
      cp "$f" "$src/${f#"$mod"/}"
    done
    { [ -f "$mod/go.sum" ] && grep -v '^github\.com/adsnap/svc/' "$mod/go.sum"; cat "$tmp/proxy/go.sum"; } >"$src/go.sum" || true
    GOWORK=off GOPROXY="file://$tmp/proxy,file://$cache,$usual" GONOSUMDB=github.com/adsnap GOMODCACHE=$tmp/modcache \
      GOFLAGS="${GOFLAGS:+$GOFLAGS }-modcacherw" scan "source $mod (alone, as released)" -C "$src" ./...
    continue
  fi
  # e2e in the workspace; a module outside go.work (internal/tools) on its own.
  gowork=auto
  grep -qE "^[[:space:]]*\./$mod\$" go.work || gowork=off
  GOWORK=$gowork scan "source $mod" -C "$mod" ./...
done

# The binaries: bin/ and the release archives' (unpacked into a temporary
# directory). A file is a Go binary when `go version` reads its build info.
bins=$tmp/bins
mkdir -p "$bins"
if [ -d dist ]; then
  for a in dist/*.tgz dist/*.mcpb; do
    [ -e "$a" ] || continue
    d=$bins/$(basename "$a")
    mkdir -p "$d"
    case $a in
    *.tgz) tar -xzf "$a" -C "$d" ;;
    *.mcpb) (cd "$d" && unzip -q "$root/$a") ;;
    esac
  done
else
  echo "(no dist/: run make release-cli first to check the release archives' binaries too)"
fi
nbin=0
while IFS= read -r f; do
  v=$(go version "$f" 2>/dev/null) || continue
  [[ $v == *": go"* ]] || continue # not a Go binary (README.md, LICENSE, …)
  name=${f#"$bins"/}
  v=${v##* }
  if [ "$v" != "$toolchain" ]; then
    failed+=("binary $name: built with $v, not $toolchain")
  fi
  scan "binary $name ($v)" -mode=binary "$f"
  nbin=$((nbin + 1))
done < <(find bin "$bins" -type f 2>/dev/null | sort)
if [ "$nbin" -eq 0 ]; then
  failed+=("no binary in bin/: run make build first")
fi

echo "vulnerability database: golang.org/x/vulndb@$VULNDB_VERSION"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'vulncheck FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "vulncheck: no reachable vulnerability in $nmod modules and $nbin binaries"
