#!/usr/bin/env bash
# Builds the static Linux binaries of the container image: svc-api and
# keys-admin, CGO_ENABLED=0, -trimpath, stripped, version-stamped as
# `make build` stamps them. deploy/Dockerfile runs this script, `make
# build-static` runs it into bin/static/, and the e2e suite builds the
# binaries it runs with it (e2e/internal/harness.Build), so all three use
# the same flags. The sibling modules' required versions are their
# directories (go.work). Usage: scripts/build-static.sh OUTDIR
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/goenv.sh"
out=${1:?usage: scripts/build-static.sh OUTDIR}
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
DATE=${DATE:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}
# The version of a module is versions.yaml's, as `make build` stamps it.
modversion() { awk -v m="$1:" '$1 == m { sub(/^v/, "", $2); print $2 }' versions.yaml; }
stamp() { echo "-s -w -X $1.version=$(modversion "$2") -X $1.commit=$COMMIT -X $1.date=$DATE"; }
export CGO_ENABLED=0 GOOS=${GOOS:-linux}
api=$(stamp github.com/adsnap/svc/api-server/internal/cli api-server)
ka=$(stamp github.com/adsnap/svc/keys-admin/cli keys-admin)
(cd api-server && go build -trimpath -ldflags "$api" -o "$out/svc-api" ./cmd/svc-api)
(cd keys-admin && go build -trimpath -ldflags "$ka" -o "$out/keys-admin" ./cmd/keys-admin)
