#!/bin/sh
# Installs svc, the command-line client of the Snapshot Developer Service,
# from the site's downloads directory ({site_url}/developers/): it checks the
# signature of SHA256SUMS with the release public key below, then the
# archive's SHA-256 against SHA256SUMS, and only then installs.
#
#   curl -fsSL {site_url}/developers/install-svc.sh | sh -s -- [--dir DIR] [--version V]
#   sh install-svc.sh [--dir DIR] [--version V] [SITE_URL]
#
#   --dir DIR    directory for svc (default $SVC_INSTALL_DIR, else ~/.local/bin);
#                --prefix is the same
#   --version V  version to install (default: the release SHA256SUMS is signed
#                for); it must be the version the signature's trusted comment
#                names. Without it, a release older than release_version below
#                (the one this script came with) is refused: a site cannot roll
#                you back to an older, genuinely signed release unless you ask
#   --insecure-skip-signature  install without checking the signature, on
#                the SHA-256 alone (see below)
#   SITE_URL     the site (default $SVC_SITE_URL, else default_site below,
#                the site the release was built for): https://HOST[:PORT][/PATH],
#                or http:// to this machine only (localhost, [::1] or an
#                address in 127.0.0.0/8); checked before anything is fetched
#
# The signature (SHA256SUMS.minisig, minisign's format, Ed25519) is checked
# with minisign, or else with OpenSSL 3 (openssl pkeyutl), against the
# public key written below when the release was built; it proves that the
# checksums come from whoever holds the release key, not just from the site
# that served them. The script refuses on a bad or missing signature, or
# when neither tool is present, unless --insecure-skip-signature: then the
# SHA-256 check is an integrity check only (it catches a corrupted download,
# not a compromised site), and the script says so. Nothing is extracted
# before both checks pass, and nothing is left behind when one fails.
set -eu

# The site to install from when none is given: scripts/release-cli.sh writes
# the release's site here.
default_site=https://adsnap.example
# The release public key (minisign), also in the project's README: written
# here by scripts/release-cli.sh from the key that signs the release.
release_public_key=RWQTppskfUqHyVqiJZ6PxIPR2+WC1S8pmchD45QeGBEM0qCGXGP+kgRq
# The release this script was published with: scripts/release-cli.sh writes
# it here. The script never installs an older release unless --version names
# it (rollback protection); 0.0.0 (a script not built by release-cli) sets
# no minimum.
release_version=0.0.0

usage() {
	cat <<'USAGE'
Usage: install-svc.sh [--dir DIR] [--version V] [--insecure-skip-signature] [SITE_URL]
  or:  curl -fsSL {site_url}/developers/install-svc.sh | sh -s -- [--dir DIR] [--version V]

Downloads SHA256SUMS, its signature SHA256SUMS.minisig and
svc-cli-<version>-<os>-<arch>.tgz from {site_url}/developers/, checks the
signature with the release public key (minisign, or OpenSSL 3), then the
archive's SHA-256, and only then installs svc.
  --dir DIR    directory for svc (default $SVC_INSTALL_DIR, else ~/.local/bin)
  --version V  version to install (default: the release SHA256SUMS is signed
               for); a release older than this script's is installed only
               when named here
  --insecure-skip-signature
               do not check the signature: the SHA-256 check alone proves
               only that the archive matches the list served by the same
               site, not who made it
  SITE_URL     default $SVC_SITE_URL, else the site the release was built
               for; https, or http to localhost, [::1] or 127.x.y.z only
USAGE
}

die() {
	printf 'install-svc: %s\n' "$*" >&2
	exit 1
}

site=${SVC_SITE_URL:-}
prefix=${SVC_INSTALL_DIR:-}
version=
insecure=0
while [ $# -gt 0 ]; do
	case $1 in
	--dir | --prefix) [ $# -ge 2 ] || die "$1 needs a directory"; prefix=$2; shift 2 ;;
	--dir=* | --prefix=*) prefix=${1#*=}; shift ;;
	--version) [ $# -ge 2 ] || die "--version needs a version"; version=$2; shift 2 ;;
	--version=*) version=${1#--version=}; shift ;;
	--insecure-skip-signature) insecure=1; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) site=$1; shift ;;
	esac
done
[ -n "$site" ] || site=$default_site
[ -n "$prefix" ] || prefix=${HOME:?HOME is not set}/.local/bin
version=${version#v}

# is_loopback HOST: HOST (lower case) is exactly localhost, [::1], or an
# IPv4 address in 127.0.0.0/8 written as four decimal numbers (no leading
# zeros, no shorthand: curl reads 0177.1 as 127.0.0.1 but a look-alike
# such as 127.evil.example is a name anyone can point anywhere).
is_loopback() {
	case $1 in
	localhost | '[::1]') return 0 ;;
	*.) return 1 ;;
	127.*) ;;
	*) return 1 ;;
	esac
	old_ifs=$IFS
	IFS=.
	# shellcheck disable=SC2086 # split on the dots; HOST holds no glob character
	set -- $1
	IFS=$old_ifs
	[ $# -eq 4 ] || return 1
	for octet; do
		case $octet in '' | *[!0-9]* | 0?*) return 1 ;; esac
		[ "${#octet}" -le 3 ] && [ "$octet" -le 255 ] || return 1
	done
	return 0
}

# check_site URL parses the site before anything is fetched: a scheme, a
# host (a name, an IPv4 address or a bracketed IPv6 address), an optional
# port and path; no user information (http://localhost:1@evil.example goes
# to evil.example), query or fragment. Plain http only to this machine.
check_site() {
	case $1 in
	https://*) scheme=https; rest=${1#https://} ;;
	http://*) scheme=http; rest=${1#http://} ;;
	*) die "the site URL must start with https:// ($1)" ;;
	esac
	authority=${rest%%[/?#]*}
	path=${rest#"$authority"}
	case $authority in
	*@*) die "refusing the site $1: it has user information (the part before @) that hides the real host; give https://HOST[:PORT]" ;;
	esac
	case $path in
	*[!A-Za-z0-9._~/-]*) die "refusing the site $1: its path may hold only letters, digits and . _ ~ / - (no query or fragment)" ;;
	esac
	port=
	case $authority in
	\[*\]:*) host=${authority%%]*}]; port=${authority#*]:}; [ -n "$port" ] || die "refusing the site $1: empty port" ;;
	\[*\]) host=$authority ;;
	\[*) die "refusing the site $1: malformed IPv6 address" ;;
	*:*) host=${authority%%:*}; port=${authority#*:}; [ -n "$port" ] || die "refusing the site $1: empty port" ;;
	*) host=$authority ;;
	esac
	host=$(printf '%s' "$host" | tr 'A-Z' 'a-z')
	case $host in
	'' | '[]') die "refusing the site $1: no host" ;;
	\[*) case $host in \[*[!0-9a-f:.]*\]) die "refusing the site $1: malformed IPv6 address" ;; esac ;;
	*[!a-z0-9.-]*) die "refusing the site $1: the host may hold only letters, digits, . and -" ;;
	esac
	case $port in
	'') ;;
	*[!0-9]*) die "refusing the site $1: the port must be a number" ;;
	*) { [ "${#port}" -le 5 ] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ]; } || die "refusing the site $1: port out of range" ;;
	esac
	if [ "$scheme" = http ] && ! is_loopback "$host"; then
		die "refusing plain http to a host that is not loopback ($host in $1): plain http goes only to localhost, [::1] or an address in 127.0.0.0/8; use https"
	fi
}

site=${site%/}
check_site "$site"
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

# key_id FILE OFFSET: the minisign key ID (8 bytes at OFFSET of FILE, little
# endian) as minisign prints it: 16 upper-case hex digits.
key_id() {
	dd if="$1" bs=1 skip="$2" count=8 2>/dev/null | od -An -v -tx1 | tr -s ' \n' '\n\n' | sed '/^$/d' | sed -n '1!G;h;$p' | tr -d '\n' | tr 'a-f' 'A-F'
}

# size FILE: its size in bytes.
size() { wc -c <"$1" | tr -d ' '; }

# have_openssl3: an openssl that verifies raw Ed25519 signatures (OpenSSL 3;
# LibreSSL, as macOS ships it, does not).
have_openssl3() {
	command -v openssl >/dev/null 2>&1 || return 1
	case $(openssl version 2>/dev/null) in
	"OpenSSL "[3-9].*) return 0 ;;
	esac
	return 1
}

# bad_signature WHY: refuses the release.
bad_signature() {
	die "SIGNATURE CHECK FAILED for SHA256SUMS from $base: $*.
SHA256SUMS is not signed by the release key $release_public_key, so none of the files it lists can be trusted; nothing was installed. Report it to the site's operators."
}

# verify_openssl SUMS SIG checks a minisign signature with OpenSSL 3, as
# minisign does: SIG holds an untrusted comment, base64 of ("ED" or "Ed",
# key ID, Ed25519 signature of BLAKE2b-512(SUMS), or of SUMS for "Ed"), the
# trusted comment, and base64 of the Ed25519 signature of (signature ||
# trusted comment). Written out here because no stock tool but minisign
# reads the format, and OpenSSL is on most machines.
verify_openssl() {
	d=$tmp/signature
	mkdir "$d"
	sed -n 2p "$2" | tr -d '\r' >"$d/sig.b64"
	sed -n 3p "$2" | tr -d '\r' >"$d/comment"
	sed -n 4p "$2" | tr -d '\r' >"$d/global.b64"
	openssl base64 -d -A -in "$d/sig.b64" -out "$d/sig.bin" 2>/dev/null || true
	openssl base64 -d -A -in "$d/global.b64" -out "$d/global.sig" 2>/dev/null || true
	printf '%s' "$release_public_key" >"$d/pub.b64"
	openssl base64 -d -A -in "$d/pub.b64" -out "$d/pub.bin" 2>/dev/null || true
	[ "$(size "$d/pub.bin")" = 42 ] || die "the release public key in this script is malformed"
	[ "$(size "$d/sig.bin")" = 74 ] && [ "$(size "$d/global.sig")" = 64 ] && grep -q '^trusted comment: ' "$d/comment" ||
		bad_signature "SHA256SUMS.minisig is not a minisign signature"
	signer=$(key_id "$d/sig.bin" 2)
	release=$(key_id "$d/pub.bin" 2)
	[ "$signer" = "$release" ] || bad_signature "it was signed by another key (key ID $signer), not by the release key (key ID $release)"
	dd if="$d/sig.bin" bs=1 skip=10 count=64 of="$d/ed25519.sig" 2>/dev/null
	# The public key as DER (SubjectPublicKeyInfo): the fixed 12-byte prefix
	# of an Ed25519 key (RFC 8410), then its 32 bytes.
	printf '\060\052\060\005\006\003\053\145\160\003\041\000' >"$d/pub.der"
	dd if="$d/pub.bin" bs=1 skip=10 count=32 2>/dev/null >>"$d/pub.der"
	case $(dd if="$d/sig.bin" bs=1 count=2 2>/dev/null) in
	ED) openssl dgst -blake2b512 -binary -out "$d/message" "$1" || die "openssl cannot compute BLAKE2b-512" ;;
	Ed) cp "$1" "$d/message" ;;
	*) bad_signature "SHA256SUMS.minisig uses an unknown algorithm" ;;
	esac
	openssl pkeyutl -verify -pubin -keyform DER -inkey "$d/pub.der" -rawin -in "$d/message" -sigfile "$d/ed25519.sig" >/dev/null 2>&1 ||
		bad_signature "the signature does not match: SHA256SUMS was changed after it was signed"
	{
		cat "$d/ed25519.sig"
		sed -n 's/^trusted comment: //p' "$d/comment" | tr -d '\n'
	} >"$d/global"
	openssl pkeyutl -verify -pubin -keyform DER -inkey "$d/pub.der" -rawin -in "$d/global" -sigfile "$d/global.sig" >/dev/null 2>&1 ||
		bad_signature "the signature's trusted comment was changed"
	sed -n 's/^trusted comment: //p' "$d/comment"
}

# verify_signature SUMS SIG: minisign if installed, else OpenSSL 3, else
# refuse; nothing at all with --insecure-skip-signature.
verify_signature() {
	if command -v minisign >/dev/null 2>&1; then
		# minisign prints why it refuses unless quiet; -Q prints the
		# trusted comment once it verifies.
		if ! comment=$(minisign -V -Q -P "$release_public_key" -m "$1" -x "$2" 2>"$tmp/minisign.err"); then
			why=$(tr '\n' ' ' <"$tmp/minisign.err" | sed 's/ *$//')
			bad_signature "minisign refused it: ${why:-the signature does not match, so SHA256SUMS was changed after it was signed}"
		fi
		tool=minisign
	elif have_openssl3; then
		comment=$(verify_openssl "$1" "$2")
		tool="OpenSSL ($(openssl version | cut -d' ' -f2))"
	else
		die "cannot check the signature of SHA256SUMS: neither minisign nor OpenSSL 3 is installed; nothing was installed.
Install minisign (apt-get install minisign, brew install minisign) and run this again, or check the files with an svc you already trust (svc verify), or, accepting that a compromised site could then serve you any program, run this again with --insecure-skip-signature."
	fi
	echo "Verified the signature of SHA256SUMS with $tool: signed by the release key $release_public_key (trusted comment: $comment)"
}

# older A B: version A is older than version B (X.Y.Z[-PRE], by sort -V, or
# by number when sort has no -V).
older() {
	[ "$1" != "$2" ] || return 1
	if printf '1\n' | sort -V >/dev/null 2>&1; then
		first=$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)
	else
		first=$(printf '%s\n%s\n' "$1" "$2" | sort -t. -k1,1n -k2,2n -k3,3n | head -n 1)
	fi
	[ "$first" = "$1" ]
}

# check_release SIGNED: rollback protection. SIGNED is the release the
# signature's trusted comment names ("" with --insecure-skip-signature). A
# --version must be that release; without --version the release must not be
# older than release_version, the one this script came with.
check_release() {
	if [ "$insecure" = 0 ]; then
		[ -n "$1" ] || bad_signature "its trusted comment names no svc-cli release, so it cannot be told from an older one"
		if [ -n "$version" ] && [ "$version" != "$1" ]; then
			die "SHA256SUMS at $base is signed for svc $1, not the $version you asked for; nothing was installed"
		fi
	fi
	if [ "$explicit" = 0 ] && older "$version" "$release_version"; then
		die "ROLLBACK REFUSED: $base offers svc $version, older than svc $release_version, the release this installer came with; nothing was installed.
A site should not serve an older release than the one it published before. If you do want svc $version, name it: --version $version"
	fi
}

explicit=0
[ -z "$version" ] || explicit=1
fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS" || die "could not download $base/SHA256SUMS"
if [ "$insecure" = 1 ]; then
	echo "WARNING: --insecure-skip-signature: the signature of SHA256SUMS is NOT checked. The SHA-256 check below is an integrity check only: it proves that the archive matches the list served by the same site, not that the release comes from its publisher." >&2
else
	fetch "$base/SHA256SUMS.minisig" "$tmp/SHA256SUMS.minisig" ||
		die "could not download $base/SHA256SUMS.minisig: without the signature SHA256SUMS cannot be trusted; nothing was installed (--insecure-skip-signature installs on the checksum alone, at your risk)"
	verify_signature "$tmp/SHA256SUMS" "$tmp/SHA256SUMS.minisig"
	# The release signed for: "svc-cli VERSION" in the trusted comment.
	signed=$(printf '%s\n' "$comment" | sed -n 's/^.*svc-cli \([0-9][0-9A-Za-z.+-]*\).*$/\1/p' | head -n 1)
	[ -n "$version" ] || version=$signed
	check_release "$signed"
fi

if [ -z "$version" ]; then
	versions=$(sed -n "s/^[0-9a-fA-F]\{64\}  *\*\{0,1\}svc-cli-\(.*\)-$os-$arch\.tgz\$/\1/p" "$tmp/SHA256SUMS")
	[ -n "$versions" ] || die "SHA256SUMS at $base lists no svc archive for $os/$arch"
	if printf '1\n' | sort -V >/dev/null 2>&1; then
		version=$(printf '%s\n' "$versions" | sort -V | tail -n 1)
	else
		version=$(printf '%s\n' "$versions" | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
	fi
fi
[ "$insecure" = 0 ] || check_release ""
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
if [ "$insecure" = 1 ]; then
	echo "Verified SHA-256 of $archive against SHA256SUMS (an integrity check against corruption, not a signature: it proves the file matches the checksum list served by the same site)"
else
	echo "Verified SHA-256 of $archive against the signed SHA256SUMS"
fi

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
