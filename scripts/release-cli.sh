#!/usr/bin/env bash
# Builds everything served from {site_url}/developers/ for one svc release,
# byte-reproducibly (two runs on the same commit with the same keys give the
# same SHA256SUMS and SHA256SUMS.minisig):
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
#   SOURCE_DATE_EPOCH  time of every archive entry, of the bundles' signing
#              time and the stamped build date (default: the commit time)
#   PLATFORMS  os/arch list to build (default: all six below; tests build fewer)
# The keys, each kept outside the repository (RELEASING.md, "Keys"):
#   SVC_RELEASE_KEY_FILE  the release key: a minisign secret key file
#   SVC_RELEASE_KEY       or its text (for a CI secret)
#   SVC_RELEASE_KEY_PASSWORD  its password, if it is encrypted
#   SVC_MCPB_CERT, SVC_MCPB_KEY  the code-signing certificate (PEM, its
#              chain after it) and its private key (PEM, RSA) for `mcpb sign`
#   THROWAWAY_KEYS=1  for a demo or a test: sign with a minisign key and a
#              self-signed certificate made for this run and deleted after it
#
# Output in $DIST_DIR, for linux, darwin and windows on amd64 and arm64:
#   svc-cli-<v>-<os>-<arch>.tgz  svc (svc.exe on Windows), LICENSE, README.md
#   svc-cli-<v>-<os>-<arch>.cdx.json  CycloneDX SBOM of that svc binary (every
#                                linked module with version and hash, from
#                                its build information: cyclonedx-gomod bin)
#   svc-cli-<v>.tgz              the npm package (bin svc, Node >= 22, no
#                                dependencies, no install scripts): a launcher
#                                running the bundled binary of the platform
#   svc-mcp-<v>-<os>-<arch>.mcpb MCP Bundle: manifest.json, server/svc, LICENSE,
#                                signed with `mcpb sign`
#   server.json                  the MCP server in the MCP registry's format
#   install-svc.sh               the installer, with SITE_URL as its default
#                                site and the release public key
#   svc-cli-<v>.intoto.json      in-toto statement, SLSA provenance v1: the
#                                commit, versions.yaml, Go version, commands,
#                                every module built in, every file above
#   SHA256SUMS                   sha256sum format, one line per file above
#   SHA256SUMS.minisig           minisign signature of SHA256SUMS by the
#                                release key
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
platforms=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

# The release tools (internal/tools, pinned by its go.mod): releasetool signs
# and writes the provenance; cyclonedx-gomod writes the SBOMs.
(cd "$root/internal/tools" && GOWORK=off go build -trimpath -o "$work/tools/" ./cmd/releasetool github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod)
releasetool() { "$work/tools/releasetool" "$@"; }

# outside_repo NAME PATH refuses a key file inside the repository, where a
# commit or a copy of the tree could take it along.
outside_repo() {
  local real
  [ -f "$2" ] || { echo "release-cli: $1: no file $2" >&2; exit 2; }
  real=$(cd "$(dirname "$2")" && pwd -P)/$(basename "$2")
  case $real in
  "$(cd "$root" && pwd -P)"/*) echo "release-cli: $1 ($2) is inside the repository: keep keys outside it (RELEASING.md, Keys)" >&2; exit 2 ;;
  esac
}

# The keys: throwaway ones for a demo or a test, else the operator's.
if [ "${THROWAWAY_KEYS:-}" = 1 ]; then
  releasetool throwaway "$work/keys" >/dev/null
  export SVC_RELEASE_KEY_FILE=$work/keys/minisign.key SVC_MCPB_CERT=$work/keys/mcpb-cert.pem SVC_MCPB_KEY=$work/keys/mcpb-key.pem
  unset SVC_RELEASE_KEY SVC_RELEASE_KEY_PASSWORD
  echo "release-cli: THROWAWAY_KEYS=1: signing with a key and a self-signed certificate made for this run (deleted after it): for a demo or a test, never for users"
else
  if [ -z "${SVC_RELEASE_KEY_FILE:-}${SVC_RELEASE_KEY:-}" ]; then
    echo "release-cli: no release key: set SVC_RELEASE_KEY_FILE to the minisign secret key (kept outside the repository; RELEASING.md, Keys), or THROWAWAY_KEYS=1 for a demo or a test" >&2
    exit 2
  fi
  [ -z "${SVC_RELEASE_KEY_FILE:-}" ] || outside_repo SVC_RELEASE_KEY_FILE "$SVC_RELEASE_KEY_FILE"
  if [ -z "${SVC_MCPB_CERT:-}" ] || [ -z "${SVC_MCPB_KEY:-}" ]; then
    echo "release-cli: set SVC_MCPB_CERT and SVC_MCPB_KEY: the certificate and key that sign the MCP Bundles (mcpb sign; RELEASING.md, Keys)" >&2
    exit 2
  fi
  outside_repo SVC_MCPB_KEY "$SVC_MCPB_KEY"
  [ -f "$SVC_MCPB_CERT" ] || { echo "release-cli: SVC_MCPB_CERT: no file $SVC_MCPB_CERT" >&2; exit 2; }
fi
pubkey=$(releasetool pubkey)
project_key=$(sed -n 's/^release_public_key=//p' scripts/install-svc.sh)
if [ "$pubkey" != "$project_key" ]; then
  echo "release-cli: note: signing with the key $pubkey, not the project's release key $project_key (README.md): install-svc.sh and svc of this release trust the former only"
fi

pkg=github.com/adsnap/svc/svc-cli/internal/build
# No -X of the version: svc reads it from the module's build information.
# The release key is stamped so that `svc verify` of this svc trusts the key
# that signed the release (the project's key, unless THROWAWAY_KEYS=1).
ldflags="-s -w -X $pkg.commit=$commit -X $pkg.date=$date -X $pkg.siteURL=$site -X $pkg.releaseKey=$pubkey"

# mcpb sign, from scripts/mcpb-sign (Node.js 22 and @anthropic-ai/mcpb,
# pinned by its package-lock.json), with the process clock at
# SOURCE_DATE_EPOCH (clock.mjs) so that the signed bundles are reproducible.
mcpbdir=$root/scripts/mcpb-sign
if [ ! -x "$mcpbdir/node_modules/node/bin/node" ] || [ ! -f "$mcpbdir/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js" ]; then
  command -v npm >/dev/null 2>&1 || { echo "release-cli: npm is needed once to install the pinned mcpb and Node.js 22 in scripts/mcpb-sign (apt-get install npm)" >&2; exit 1; }
  (cd "$mcpbdir" && npm ci --no-audit --no-fund --loglevel=error) >/dev/null
fi
mcpb_sign() {
  "$mcpbdir/node_modules/node/bin/node" --import "$mcpbdir/clock.mjs" "$mcpbdir/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js" \
    sign "$1" --cert "$SVC_MCPB_CERT" --key "$SVC_MCPB_KEY" >"$work/mcpb-sign.log" 2>&1 ||
    { cat "$work/mcpb-sign.log" >&2; echo "release-cli: mcpb sign $1 failed" >&2; exit 1; }
  grep -q '^Successfully signed' "$work/mcpb-sign.log" || { cat "$work/mcpb-sign.log" >&2; exit 1; }
}

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
rm -f "$dist"/svc-cli-*.tgz "$dist"/svc-cli-*.cdx.json "$dist"/svc-cli-*.intoto.json "$dist"/svc-mcp-*.mcpb "$dist/server.json" \
  "$dist/install-svc.sh" "$dist/SHA256SUMS" "$dist/SHA256SUMS.minisig"

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

  # Its SBOM, from the binary's build information (the same binary is in the
  # npm package and the bundle): every module with its version and go.sum
  # hash, the standard library with the Go version. No serial number or
  # time, so that the file is reproducible.
  "$work/tools/cyclonedx-gomod" bin -json -std -noserial -notimestamp -version "v$version" \
    -output "$dist/svc-cli-$version-$os-$arch.cdx.json" "$bin/$exe" 2>"$work/sbom.log" ||
    { cat "$work/sbom.log" >&2; exit 1; }
  chmod 0644 "$dist/svc-cli-$version-$os-$arch.cdx.json"

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
  mcpb_sign "$dist/svc-mcp-$version-$os-$arch.mcpb"
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

# The install script, with this site as its default and the release key.
sed -e "s|^default_site=.*|default_site=$site|" -e "s|^release_public_key=.*|release_public_key=$pubkey|" -e "s|^release_version=.*|release_version=$version|" \
  scripts/install-svc.sh > "$dist/install-svc.sh"
grep -qx "release_version=$version" "$dist/install-svc.sh" || { echo "release-cli: scripts/install-svc.sh has no release_version= line" >&2; exit 1; }
grep -qx "default_site=$site" "$dist/install-svc.sh" || { echo "release-cli: scripts/install-svc.sh has no default_site= line" >&2; exit 1; }
grep -qx "release_public_key=$pubkey" "$dist/install-svc.sh" || { echo "release-cli: scripts/install-svc.sh has no release_public_key= line" >&2; exit 1; }
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
# The provenance of the release: every file above by name and SHA-256.
artifacts=$(LC_ALL=C ls svc-cli-"$version"-*.tgz svc-cli-"$version"-*.cdx.json svc-cli-"$version".tgz svc-mcp-"$version"-*.mcpb server.json install-svc.sh | LC_ALL=C sort)
full_commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo 0000000000000000000000000000000000000000)
clean=true
[ -z "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] || clean=false
# shellcheck disable=SC2086 # word splitting of the file and binary lists
releasetool provenance -out "svc-cli-$version.intoto.json" -version "$version" -commit "$full_commit" \
  -versions "$root/versions.yaml" -site "$site" -platforms "$platforms" -source-date-epoch "$SOURCE_DATE_EPOCH" -clean="$clean" \
  -build-command "SITE_URL=$site PLATFORMS='$platforms' scripts/release-cli.sh $version (make release-cli)" \
  -go-install "GOWORK=off CGO_ENABLED=0 GOOS=<os> GOARCH=<arch> go install -trimpath -ldflags '$ldflags' github.com/adsnap/svc/svc-cli/cmd/svc@v$version" \
  $(for b in "$work"/bin/*/*; do printf -- '-binary %s ' "$b"; done) $artifacts

files=$(printf '%s\n' $artifacts "svc-cli-$version.intoto.json" | LC_ALL=C sort)
for f in $files; do
  printf '%s  %s\n' "$(sha256 "$f")" "$f"
done > SHA256SUMS
# The signature: deterministic (Ed25519), with a trusted comment that names
# the release; minisign -V prints it.
releasetool sign -trusted-comment "$(printf 'timestamp:%s\tfile:SHA256SUMS\thashed\tsvc-cli %s (commit %s)' "$SOURCE_DATE_EPOCH" "$version" "$commit")" SHA256SUMS
echo "wrote $(wc -l < SHA256SUMS | tr -d ' ') files, SHA256SUMS and SHA256SUMS.minisig to $dist (site $site, key $pubkey)"
