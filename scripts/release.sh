#!/usr/bin/env bash
# make release MODULE=sdk-go VERSION=v1.1.0: prepares the release of one module
# in the work tree and prints the commands that commit and tag it.
#
#   - refuses unless the module's CHANGELOG.md has entries under
#     "## [Unreleased]", and unless VERSION is newer than versions.yaml's (or
#     equal to it when that version has no CHANGELOG heading yet: the first
#     release);
#   - moves the Unreleased entries under "## [X.Y.Z] - YYYY-MM-DD";
#   - sets the version in versions.yaml and in the module's version.go
#     (const Version), the requirement of every go.mod that requires it, and
#     go.work's replacement of that version with the module's directory (so
#     that plain go commands keep working in the workspace);
#   - runs release-check on the module (for sdk-go, keys-admin and svc-mcp an
#     incompatible API change then needs a major version) and records its API
#     in api/<module>/vX.Y.Z.export for the next release's check.
# On any failure after the edits began, the edited files are restored.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/goenv.sh"
cd "$(git rev-parse --show-toplevel)"
module=${1:-}
version=${2:-}
usage="usage: make release MODULE=<module of versions.yaml> VERSION=vX.Y.Z"
[ -n "$module" ] && [ -n "$version" ] || { echo "$usage" >&2; exit 2; }
[[ "$version" =~ ^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] ||
  { echo "release: VERSION $version is not of the form vX.Y.Z; $usage" >&2; exit 2; }
current=$(awk -v m="$module:" '$1 == m { print $2 }' versions.yaml)
[ -n "$current" ] || { echo "release: $module is not a module of versions.yaml; $usage" >&2; exit 2; }
number=${version#v}
changelog=$module/CHANGELOG.md
[ -f "$changelog" ] || { echo "release: $changelog is missing" >&2; exit 1; }

if grep -q "^## \[$number\]" "$changelog"; then
  echo "release: $changelog already has a $number section: $module $version was released" >&2
  exit 1
fi
newest=$(printf '%s\n%s\n' "$current" "$version" | sort -V | tail -1)
if [ "$newest" != "$version" ]; then
  echo "release: $version is older than $module's current $current (versions.yaml)" >&2
  exit 1
fi
entries=$(awk '/^## \[Unreleased\]/ { on = 1; next } /^## \[/ { on = 0 } on && /^[-*] / { n++ } END { print n + 0 }' "$changelog")
if [ "$entries" = 0 ]; then
  echo "release: $changelog has no entry under ## [Unreleased]; describe the change there first" >&2
  exit 1
fi
if [ -n "$(git status --porcelain -- "$module" versions.yaml api)" ]; then
  echo "release: commit or stash the changes of $module/, versions.yaml and api/ first" >&2
  exit 1
fi

# The files edited, saved so that a failure leaves the tree as it was.
backup=$(mktemp -d)
trap 'rm -rf "$backup"' EXIT
edited=(versions.yaml go.work "$changelog")
[ -f "$module/version.go" ] && edited+=("$module/version.go")
dependents=()
for f in $(git ls-files '*go.mod'); do
  if awk -v p="github.com/adsnap/svc/$module" '$1 == p || ($1 == "require" && $2 == p) { found = 1 } END { exit !found }' "$f"; then
    edited+=("$f")
    dependents+=("$(dirname "$f")")
  fi
done
for f in "${edited[@]}"; do
  mkdir -p "$backup/$(dirname "$f")"
  cp "$f" "$backup/$f"
done
restore() {
  for f in "${edited[@]}"; do cp "$backup/$f" "$f"; done
  rm -f "api/$module/$version.export"
  echo "release: failed; the files it edited are restored" >&2
}
trap 'restore; rm -rf "$backup"' ERR

today=$(date -u +%F)
sed -i "0,/^## \[Unreleased\]/s//## [Unreleased]\n\n## [$number] - $today/" "$changelog"
sed -i "s/^  $module: v.*/  $module: $version/" versions.yaml
if [ -f "$module/version.go" ]; then
  sed -i "s/^const Version = \".*\"/const Version = \"$number\"/" "$module/version.go"
fi
for d in "${dependents[@]}"; do
  (cd "$d" && go mod edit -require="github.com/adsnap/svc/$module@$version")
done
# go.work replaces each sibling version a go.mod requires, and no other, with
# the sibling's directory (internal/tools TestWorkspaceReplacesEverySibling):
# the module's replacement moves to the new version in place (one line, the
# first if a lagging requirement had its own), or is added.
if [ ${#dependents[@]} -gt 0 ]; then
  path="github.com/adsnap/svc/$module"
  awk -v p="$path" -v v="$version" -v d="./$module" '
    $1 == p && $3 == "=>" { if (!done) { sub(/[^[:space:]].*/, ""); print $0 p " " v " => " d; done = 1 }; next }
    $1 == "replace" && $2 == p && $4 == "=>" { if (!done) { print "replace " p " " v " => " d; done = 1 }; next }
    { print }' go.work > "$backup/go.work.new"
  cat "$backup/go.work.new" > go.work
  grep -qE "^[[:space:]]*(replace[[:space:]]+)?$path $version => \./$module\$" go.work ||
    go work edit -replace="$path@$version=./$module"
fi

RELEASE_API="$module" scripts/release-check.sh "$module"
trap - ERR

echo
echo "$module $version is ready: versions.yaml, $changelog${dependents:+, the go.mod of ${dependents[*]} and go.work}."
echo "Review the diff, then commit and tag it (the tag names the commit that"
echo "holds the \"## [$number]\" heading; that commit is the release):"
echo
echo "  git add -A versions.yaml go.work api $module ${dependents[*]}"
echo "  git commit -m \"release: $module $version\""
echo "  git tag $module/$version"
echo "  git push origin $module/$version   # where there is a remote"
if [ ${#dependents[@]} -gt 0 ]; then
  echo
  echo "Now requiring $module $version: ${dependents[*]}. Release those that are"
  echo "released modules next, in order (keys-admin, api-server; sdk-go, svc-mcp, svc-cli)."
fi
