#!/usr/bin/env bash
# Builds everything served from {site_url}/developers/ for one svc release,
# byte-reproducibly (two runs on the same commit give the same SHA256SUMS):
#
#   scripts/release-cli.sh [VERSION]
#
# VERSION is like 1.0.0 (a leading "v" or "svc-cli/v" is dropped) and must
# be svc-cli's version in versions.yaml, the default. Environment:
#   SITE_URL   site built into svc, the install script, the MCP Bundles and
#              server.json (default https://adsnap.example)
#   DIST_DIR   output directory (default dist/ at the repository root); the
#              files this script writes there are replaced
#   COMMIT     commit stamped into svc (default: git rev-parse --short HEAD)
#   SOURCE_DATE_EPOCH  time of every archive entry and the stamped build date
#              (default: the commit time)
#   PLATFORMS  os/arch list to build (default: all six below; tests build fewer)
#
# Output in $DIST_DIR, for linux, darwin and windows on amd64 and arm64:
#   svc-cli-<v>-<os>-<arch>.tgz  svc (svc.exe on Windows), LICENSE, README.md
#   svc-cli-<v>.tgz              the npm package (bin svc, Node >= 22, no
#                                dependencies, no install scripts): a launcher
#                                running the bundled binary of the platform
#   svc-mcp-<v>-<os>-<arch>.mcpb MCP Bundle: manifest.json, server/svc, LICENSE
#   server.json                  the MCP server in the MCP registry's format
#   install-svc.sh               the installer, with SITE_URL as its default
#   SHA256SUMS                   sha256sum format, one line per file above
#
# Every binary is built with CGO_ENABLED=0 and -trimpath by build_svc below,
# the only place that chooses the sources: the released module versions.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/goenv.sh"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

released=$(awk '$1 == "svc-cli:" { sub(/^v/, "", $2); print $2 }' versions.yaml)
version=${1:-$released}
version=${version#svc-cli/}
version=${version#v}
if [ "$version" != "$released" ]; then
  echo "release-cli: svc-cli is at v$released in versions.yaml, not v$version: a release is built from the released module version (see RELEASING.md)" >&2
  exit 2
fi
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
  echo "release-cli: invalid version '$version': want X.Y.Z or X.Y.Z-suffix" >&2
  exit 2
fi

site=${SITE_URL:-https://adsnap.example}
site=${site%/}
site_re='^https?://[][A-Za-z0-9.:-]+(/[A-Za-z0-9._~/-]*)?$'
if ! [[ $site =~ $site_re ]]; then
  echo "release-cli: invalid SITE_URL '$site': want https://host[:port][/path]" >&2
  exit 2
fi
host=${site#*://}
host=${host%%/*}
dist=${DIST_DIR:-$root/dist}
commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r "$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
pkg=github.com/adsnap/svc/svc-cli/internal/build
# No -X of the version: svc reads it from the module's build information.
ldflags="-s -w -X $pkg.commit=$commit -X $pkg.date=$date -X $pkg.siteURL=$site"
platforms=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

# build_svc OS ARCH OUT builds svc for one platform into OUT from the
# released module versions: GOWORK=off, `go install
# github.com/adsnap/svc/svc-cli/cmd/svc@v<version>` with this repository's
# modules from a module proxy directory built from the tree (make proxy, at
# the versions of versions.yaml), third-party modules from the machine's
# module cache or the usual proxy, and a private module cache (a module
# cache never reads a version again once it holds one). So an archive holds
# exactly what `go install …@v<version>` gives a user, with the site, commit
# and build date stamped (-ldflags -X).
setup_release_build() {
  echo "make proxy OUT=$work/proxy"
  (cd "$root/internal/tools" && GOWORK=off go run ./cmd/modproxy -root "$root" -out "$work/proxy") >/dev/null
  usual=$(go env GOPROXY | tr ',' '\n' | grep -v '^file://' | paste -sd, -)
  release_env=(GOWORK=off "GOPROXY=file://$work/proxy,file://$(go env GOMODCACHE)/cache/download,$usual"
    GONOSUMDB=github.com/adsnap GOPATH="$work/gopath" GOMODCACHE="$work/gopath/pkg/mod" GOBIN= GOFLAGS=-modcacherw CGO_ENABLED=0)
}

build_svc() {
  local os=$1 arch=$2 out=$3 exe=svc gobin
  [ "$os" = windows ] && exe=svc.exe
  (cd "$work" && env "${release_env[@]}" GOOS="$os" GOARCH="$arch" \
    go install -trimpath -ldflags "$ldflags" "github.com/adsnap/svc/svc-cli/cmd/svc@v$version")
  gobin=$work/gopath/bin
  [ "$os/$arch" = "$(go env GOHOSTOS)/$(go env GOHOSTARCH)" ] || gobin=$gobin/${os}_$arch
  mv "$gobin/$exe" "$out"
}

setup_release_build

# pack tgz|zip OUT DIR [PREFIX]: a reproducible archive (internal/tools/cmd/pack).
(cd "$root/internal/tools" && GOWORK=off go build -trimpath -o "$work/pack" ./cmd/pack)
pack() { "$work/pack" "$@"; }

mkdir -p "$dist"
rm -f "$dist"/svc-cli-*.tgz "$dist"/svc-mcp-*.mcpb "$dist/server.json" "$dist/install-svc.sh" "$dist/SHA256SUMS"

npm=$work/npm
mkdir -p "$npm/bin" "$npm/platforms"
for platform in $platforms; do
  os=${platform%/*}
  arch=${platform#*/}
  exe=svc
  [ "$os" = windows ] && exe=svc.exe
  echo "building svc $version for $os/$arch"
  bin=$work/bin/$os-$arch
  mkdir -p "$bin"
  build_svc "$os" "$arch" "$bin/$exe"
  chmod 0755 "$bin/$exe"

  # The archive for the install script and for people.
  stage=$work/archive/$os-$arch
  mkdir -p "$stage"
  cp "$bin/$exe" "$stage/$exe"
  install -m 0644 LICENSE "$stage/LICENSE"
  install -m 0644 svc-cli/README.md "$stage/README.md"
  pack tgz "$dist/svc-cli-$version-$os-$arch.tgz" "$stage"

  # The npm package's copy.
  mkdir -p "$npm/platforms/$os-$arch"
  cp "$bin/$exe" "$npm/platforms/$os-$arch/$exe"

  # The MCP Bundle: node's name of the platform in the manifest.
  node_os=$os
  [ "$os" = windows ] && node_os=win32
  mcpb=$work/mcpb/$os-$arch
  mkdir -p "$mcpb/server"
  cp "$bin/$exe" "$mcpb/server/$exe"
  install -m 0644 LICENSE "$mcpb/LICENSE"
  sed -e "s|@VERSION@|$version|g" -e "s|@SITE_URL@|$site|g" -e "s|@EXE@|$exe|g" -e "s|@PLATFORM@|$node_os|g" \
    svc-cli/mcpb/manifest.json > "$mcpb/manifest.json"
  pack zip "$dist/svc-mcp-$version-$os-$arch.mcpb" "$mcpb"
done

# The npm package, packed like `npm pack` (everything under package/), but
# reproducibly and without npm: package.json is the template with the version.
sed -e "s|\"version\": \"0.0.0-dev\"|\"version\": \"$version\"|" svc-cli/npm/package.json > "$npm/package.json"
grep -q "\"version\": \"$version\"" "$npm/package.json" || { echo "release-cli: svc-cli/npm/package.json has no \"version\": \"0.0.0-dev\" to replace" >&2; exit 1; }
install -m 0755 svc-cli/npm/bin/svc.js "$npm/bin/svc.js"
install -m 0644 LICENSE "$npm/LICENSE"
install -m 0644 svc-cli/README.md "$npm/README.md"
chmod 0644 "$npm/package.json"
pack tgz "$dist/svc-cli-$version.tgz" "$npm" package/

# The install script, with this site as its default.
sed -e "s|^default_site=.*|default_site=$site|" scripts/install-svc.sh > "$dist/install-svc.sh"
grep -qx "default_site=$site" "$dist/install-svc.sh" || { echo "release-cli: scripts/install-svc.sh has no default_site= line" >&2; exit 1; }
chmod 0644 "$dist/install-svc.sh"

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# server.json: the MCP server in the MCP registry's format (schema
# 2025-12-11), one mcpb package per bundle, each with its SHA-256. The name's
# namespace is the site's host, reversed (adsnap.example -> example.adsnap).
namespace=$(printf '%s\n' "${host%:*}" | awk -F. '{ for (i = NF; i > 0; i--) printf "%s%s", $i, (i > 1 ? "." : "") }')
{
  printf '{\n'
  printf '  "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",\n'
  printf '  "name": "%s/svc-mcp",\n' "$namespace"
  printf '  "title": "Snapshot Developer Service",\n'
  printf '  "description": "Read-only stored snapshots of ad accounts, campaigns and daily insights.",\n'
  printf '  "version": "%s",\n' "$version"
  printf '  "websiteUrl": "%s/developers/",\n' "$site"
  printf '  "packages": ['
  sep=
  for platform in $platforms; do
    file=svc-mcp-$version-${platform%/*}-${platform#*/}.mcpb
    printf '%s\n    {\n' "$sep"
    printf '      "registryType": "mcpb",\n'
    printf '      "identifier": "%s/developers/%s",\n' "$site" "$file"
    printf '      "version": "%s",\n' "$version"
    printf '      "fileSha256": "%s",\n' "$(sha256 "$dist/$file")"
    printf '      "transport": {"type": "stdio"},\n'
    printf '      "environmentVariables": [\n'
    printf '        {"name": "SVC_API_KEY", "description": "Developer key (svc_live_...) from the settings UI", "isRequired": true, "isSecret": true},\n'
    printf '        {"name": "SVC_SITE_URL", "description": "Site that serves the API", "default": "%s"}\n' "$site"
    printf '      ]\n'
    printf '    }'
    sep=,
  done
  printf '\n  ]\n}\n'
} > "$dist/server.json"

cd "$dist"
files=$(LC_ALL=C ls svc-cli-"$version"-*.tgz svc-cli-"$version".tgz svc-mcp-"$version"-*.mcpb server.json install-svc.sh | LC_ALL=C sort)
for f in $files; do
  printf '%s  %s\n' "$(sha256 "$f")" "$f"
done > SHA256SUMS
echo "wrote $(wc -l < SHA256SUMS | tr -d ' ') files and SHA256SUMS to $dist (site $site)"
