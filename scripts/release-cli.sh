#!/usr/bin/env bash
# Cross-compiles svc (svc-cli) and packs one archive per platform with one
# SHA256SUMS, ready to be served from {site_url}/developers/.
#
#   scripts/release-cli.sh [VERSION]
#
# VERSION is like 1.0.0 (a leading "v" or "svc-cli/v" is dropped); without it,
# the newest svc-cli/vX.Y.Z tag is used. Environment:
#   SITE_URL   site built into svc (default https://adsnap.example)
#   DIST_DIR   output directory (default dist/ at the repository root);
#              its svc-cli-*.tgz and SHA256SUMS are replaced
#   COMMIT     commit stamped into svc (default: git rev-parse --short HEAD)
#   DATE       build date stamped into svc (default: the commit time, UTC)
#
# Output: $DIST_DIR/svc-cli-<version>-<os>-<arch>.tgz for linux/amd64,
# linux/arm64, darwin/amd64, darwin/arm64 and windows/amd64, each holding
# svc (svc.exe on Windows), LICENSE and README.md; and $DIST_DIR/SHA256SUMS
# in sha256sum format.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

version=${1:-}
if [ -z "$version" ]; then
  version=$(git describe --tags --abbrev=0 --match 'svc-cli/v*' 2>/dev/null || true)
  if [ -z "$version" ]; then
    echo "release-cli: no VERSION given and no svc-cli/v* tag found; usage: $0 1.0.0" >&2
    exit 2
  fi
fi
version=${version#svc-cli/}
version=${version#v}
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
  echo "release-cli: invalid version '$version': want X.Y.Z or X.Y.Z-suffix" >&2
  exit 2
fi

site=${SITE_URL:-https://adsnap.example}
dist=${DIST_DIR:-$root/dist}
commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
date=${DATE:-$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)}
pkg=github.com/adsnap/svc/svc-cli/internal/build
ldflags="-s -w -X $pkg.version=$version -X $pkg.commit=$commit -X $pkg.date=$date -X $pkg.siteURL=$site"
platforms="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"

# Reproducible archives with GNU tar; other tars get the defaults.
tarflags=()
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
  tarflags=(--sort=name --owner=0 --group=0 --numeric-owner --mtime="$date" --format=ustar)
fi

mkdir -p "$dist"
rm -f "$dist"/svc-cli-*.tgz "$dist/SHA256SUMS"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for platform in $platforms; do
  os=${platform%/*}
  arch=${platform#*/}
  exe=svc
  [ "$os" = windows ] && exe=svc.exe
  name=svc-cli-$version-$os-$arch
  stage=$work/$name
  mkdir -p "$stage"
  echo "building $name"
  (cd svc-cli && CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$ldflags" -o "$stage/$exe" ./cmd/svc)
  cp LICENSE "$stage/LICENSE"
  cp svc-cli/README.md "$stage/README.md"
  chmod 0755 "$stage/$exe"
  chmod 0644 "$stage/LICENSE" "$stage/README.md"
  tar "${tarflags[@]}" -C "$stage" -cf - "$exe" LICENSE README.md | gzip -n -9 > "$dist/$name.tgz"
done

cd "$dist"
if command -v sha256sum >/dev/null 2>&1; then
  sha256sum svc-cli-"$version"-*.tgz > SHA256SUMS
else
  shasum -a 256 svc-cli-"$version"-*.tgz > SHA256SUMS
fi
echo "wrote $(wc -l < SHA256SUMS) archives and SHA256SUMS to $dist"
