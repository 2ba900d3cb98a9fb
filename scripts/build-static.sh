#!/usr/bin/env bash
# Builds the static Linux binaries of the container image: svc-api and
# keys-admin, CGO_ENABLED=0, -trimpath, stripped, version-stamped as
# `make build` stamps them. deploy/Dockerfile runs this script, `make
# build-static` runs it into bin/static/, and the e2e suite builds the
# binaries it runs with it (e2e/internal/harness.Build), so all three use
# the same flags. Usage: scripts/build-static.sh OUTDIR
set -euo pipefail
out=${1:?usage: scripts/build-static.sh OUTDIR}
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
DATE=${DATE:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}
stamp() { echo "-s -w -X $1.version=$VERSION -X $1.commit=$COMMIT -X $1.date=$DATE"; }
export CGO_ENABLED=0 GOOS=${GOOS:-linux}
(cd api-server && go build -trimpath -ldflags "$(stamp github.com/adsnap/svc/api-server/internal/cli)" -o "$out/svc-api" ./cmd/svc-api)
(cd keys-admin && go build -trimpath -ldflags "$(stamp github.com/adsnap/svc/keys-admin/cli)" -o "$out/keys-admin" ./cmd/keys-admin)
