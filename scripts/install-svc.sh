#!/bin/sh
# Installs svc, the command-line client of the Snapshot Developer Service,
# from the site's downloads directory ({site_url}/developers/), after checking
# the archive's SHA-256 against the SHA256SUMS file served beside it.
#
#   curl -fsSL {site_url}/developers/install-svc.sh | sh -s -- [--dir DIR] [--version V]
#   sh install-svc.sh [--dir DIR] [--version V] [SITE_URL]
#
#   --dir DIR    directory for svc (default $SVC_INSTALL_DIR, else ~/.local/bin);
#                --prefix is the same
#   --version V  version to install (default: the newest in SHA256SUMS)
#   SITE_URL     the site (default $SVC_SITE_URL, else default_site below:
#                the site that served this script, which writes itself
#                there, or the one it was released for): https, or http to
#                a loopback host only
#
# The SHA-256 check is an integrity check, not a signature: it proves that
# the archive matches the checksum list served by the same site, which
# catches a corrupted or truncated download, not a compromised site.
# Nothing is extracted before the check passes, and nothing is left behind
# when it fails.
set -eu

# The site to install from: scripts/release-cli.sh writes the release's site
# here, and svc-api rewrites this one line with its own site when it serves
# the script (SHA256SUMS as served gives the hash of the rewritten script).
default_site=https://adsnap.example

usage() {
	cat <<'USAGE'
Usage: install-svc.sh [--dir DIR] [--version V] [SITE_URL]
  or:  curl -fsSL {site_url}/developers/install-svc.sh | sh -s -- [--dir DIR] [--version V]

Downloads svc-cli-<version>-<os>-<arch>.tgz and SHA256SUMS from
{site_url}/developers/, checks the archive's SHA-256, and only then installs svc.
  --dir DIR    directory for svc (default $SVC_INSTALL_DIR, else ~/.local/bin)
  --version V  version to install (default: the newest in SHA256SUMS)
  SITE_URL     default $SVC_SITE_URL, else the site this script came from
The checksum is an integrity check, not a signature.
USAGE
}

die() {
	printf 'install-svc: %s\n' "$*" >&2
	exit 1
}

site=${SVC_SITE_URL:-}
prefix=${SVC_INSTALL_DIR:-}
version=
while [ $# -gt 0 ]; do
	case $1 in
	--dir | --prefix) [ $# -ge 2 ] || die "$1 needs a directory"; prefix=$2; shift 2 ;;
	--dir=* | --prefix=*) prefix=${1#*=}; shift ;;
	--version) [ $# -ge 2 ] || die "--version needs a version"; version=$2; shift 2 ;;
	--version=*) version=${1#--version=}; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) site=$1; shift ;;
	esac
done
[ -n "$site" ] || site=$default_site
[ -n "$prefix" ] || prefix=${HOME:?HOME is not set}/.local/bin
version=${version#v}

# Only https, or plain http to this machine.
site=${site%/}
case $site in
https://*) ;;
http://127.* | http://localhost | http://localhost:* | http://localhost/* | http://\[::1\]*) ;;
http://*) die "refusing plain http to a host that is not loopback: use https ($site)" ;;
*) die "the site URL must start with https:// ($site)" ;;
esac
base=$site/developers

case $(uname -s) in
Linux) os=linux ;;
Darwin) os=darwin ;;
MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
*) die "unsupported operating system: $(uname -s)" ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) die "unsupported architecture: $(uname -m)" ;;
esac
exe=svc
[ "$os" = windows ] && exe=svc.exe

if command -v curl >/dev/null 2>&1; then
	fetch() { curl --fail --silent --show-error --proto '=https,http' --max-redirs 0 --connect-timeout 15 --max-time 300 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget --quiet --max-redirect=0 --timeout=15 -O "$2" "$1"; }
else
	die "neither curl nor wget is installed"
fi
if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
	die "neither sha256sum nor shasum is installed"
fi

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t svc-install)
staged=
cleanup() {
	rm -rf "$tmp"
	[ -z "$staged" ] || rm -f "$staged"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS" || die "could not download $base/SHA256SUMS"

if [ -z "$version" ]; then
	versions=$(sed -n "s/^[0-9a-fA-F]\{64\}  *\*\{0,1\}svc-cli-\(.*\)-$os-$arch\.tgz\$/\1/p" "$tmp/SHA256SUMS")
	[ -n "$versions" ] || die "SHA256SUMS at $base lists no svc archive for $os/$arch"
	if printf '1\n' | sort -V >/dev/null 2>&1; then
		version=$(printf '%s\n' "$versions" | sort -V | tail -n 1)
	else
		version=$(printf '%s\n' "$versions" | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
	fi
fi
archive=svc-cli-$version-$os-$arch.tgz

want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")
[ -n "$want" ] || die "SHA256SUMS at $base has no line for $archive"
[ "$(printf '%s\n' "$want" | wc -l)" -eq 1 ] || die "SHA256SUMS at $base has several lines for $archive"

echo "Downloading $base/$archive"
fetch "$base/$archive" "$tmp/$archive" || die "could not download $base/$archive"

got=$(sha256 "$tmp/$archive")
want=$(printf '%s' "$want" | tr 'A-F' 'a-f')
if [ "$got" != "$want" ]; then
	rm -f "$tmp/$archive"
	die "SHA-256 MISMATCH for $archive: SHA256SUMS says $want, the download is $got.
The archive is corrupted or was altered; nothing was installed. Try again, and report it if it persists."
fi
echo "Verified SHA-256 of $archive against SHA256SUMS (an integrity check against corruption, not a signature: it proves the file matches the checksum list served by the same site)"

mkdir "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" "$exe" || die "$archive does not contain $exe"
if [ ! -f "$tmp/x/$exe" ] || [ -L "$tmp/x/$exe" ]; then
	die "$archive: $exe is not a regular file"
fi

mkdir -p "$prefix" || die "cannot create $prefix"
staged=$prefix/.svc.tmp.$$
cp "$tmp/x/$exe" "$staged" || die "cannot write to $prefix"
chmod 0755 "$staged"
mv -f "$staged" "$prefix/$exe" || die "cannot install $prefix/$exe"
staged=
echo "Installed svc $version to $prefix/$exe"
case ":$PATH:" in
*":$prefix:"*) ;;
*) echo "Note: $prefix is not in PATH; add it, or run $prefix/$exe" ;;
esac
