# Snapshot Developer Service: build, test and lint every module of the workspace.
SHELL := /bin/bash
# modversion: a module's version in versions.yaml, without its "v".
modversion = $(shell awk '$$1 == "$(1):" { sub(/^v/, "", $$2); print $$2 }' versions.yaml)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
SITE_URL ?= https://adsnap.example
# The modules of this repository require each other at the versions in
# versions.yaml, which are not published: in the workspace, go.work replaces
# each of those versions with the sibling's directory, so the go commands of
# the targets below need nothing else. Outside it (GOWORK=off: make
# release-check, make tidy, make release-cli, a user's go get), they come from
# a module proxy directory built from the tree (make proxy). See RELEASING.md.
PROXY_DIR ?= $(CURDIR)/.cache/proxy
# Every go command run by make uses the patched toolchain named by go.work's
# toolchain line (the go command fetches it from the module proxy); the
# machine's own Go may be older. `make GOTOOLCHAIN=…` overrides it.
export GOTOOLCHAIN := $(shell awk '$$1 == "toolchain" { print $$2 }' go.work)
# ldflags: $(1) the package holding the variables, $(2) the module directory.
ldflags = -s -w -X $(1).version=$(call modversion,$(2)) -X $(1).commit=$(COMMIT) -X $(1).date=$(DATE)

.PHONY: all build build-static test lint vulncheck services clean release-cli demo bench proxy release-check release tidy

all: build

## proxy: Go module proxy directory OUT (default .cache/proxy) holding each released module at its versions.yaml version, built from the tree, and every older sibling version a go.mod requires (built from git history); OUT/go.sum has their hashes
OUT ?= $(PROXY_DIR)
proxy:
	@test -n '$(OUT)' || { echo 'usage: make proxy OUT=dir' >&2; exit 2; }
	cd internal/tools && GOWORK=off go run ./cmd/modproxy -root '$(CURDIR)' -out '$(abspath $(OUT))'

## build: binaries into bin/
build:
	@mkdir -p bin
	cd keys-admin && go build -trimpath -ldflags '$(call ldflags,github.com/adsnap/svc/keys-admin/cli,keys-admin)' -o ../bin/keys-admin ./cmd/keys-admin
	cd svc-cli && go build -trimpath -ldflags '$(call ldflags,github.com/adsnap/svc/svc-cli/internal/build,svc-cli) -X github.com/adsnap/svc/svc-cli/internal/build.siteURL=$(SITE_URL)' -o ../bin/svc ./cmd/svc
	cd api-server && go build -trimpath -ldflags '$(call ldflags,github.com/adsnap/svc/api-server/internal/cli,api-server)' -o ../bin/svc-api ./cmd/svc-api

## release-check: each released module alone (GOWORK=off) against the sibling versions it requires, from a proxy built from the tree: build, vet, short tests; apidiff of sdk-go, keys-admin, svc-mcp against the last release (MODULES="a b" for some)
release-check:
	scripts/release-check.sh $(MODULES)

## release: prepare the release of one module (MODULE=sdk-go VERSION=v1.1.0): CHANGELOG, versions.yaml, dependents' go.mod, release-check, recorded API; prints the git tag commands (RELEASING.md)
release:
	scripts/release.sh '$(MODULE)' '$(VERSION)'

## tidy: go mod tidy in every module (MODULES="a b" for some) with GOWORK=off against the proxy of the tree, as users build them; sibling go.sum lines removed (RELEASING.md)
tidy:
	scripts/tidy.sh $(MODULES)

## build-static: the container image's binaries (svc-api, keys-admin; static, CGO_ENABLED=0) into bin/static/, as deploy/Dockerfile and the e2e suite build them
build-static:
	scripts/build-static.sh bin/static

## services: make PostgreSQL and Redis reachable (start them if installed)
services:
	@scripts/services.sh

## test: every module's tests, integration included (needs PostgreSQL and Redis; starts them; installs Chromium for the browser test), and each fuzz target for 10 s; e2e runs beside the rest (TEST_SERIAL=1: one thing at a time)
test: services
	scripts/test-deps.sh
	TEST_THEN=scripts/fuzz.sh scripts/test.sh

## lint: gofmt check, go vet and staticcheck (pinned in internal/tools/go.mod) in every module, OpenAPI lint (Redocly CLI, pinned in api-server/package.json)
lint:
	scripts/lint.sh
	api-server/scripts/lint-openapi.sh

## vulncheck: govulncheck (pinned in internal/tools/go.mod) in source mode over every module and in binary mode over bin/ and dist/'s archives, against a database built from the golang.org/x/vulndb module (the public database host is not reachable here); fails on a reachable vulnerability or a binary not built with go.work's toolchain; prints the database snapshot
vulncheck: build
	scripts/vulncheck.sh
	@$(drop-sibling-sums)

## demo: build the binaries and run svc-api on built-in demo data (SQLite under ./.data; no PostgreSQL or Redis)
demo: build
	bin/svc-api demo

## bench: performance harness (about 8 min: wrk c=64, baseline vs svc-api at 1,000,000 rows, scale run up to 10,000,000 rows); results in bench/results/; BENCH_MODE=import runs only the import run (svc-api import vs COPY at 100k, 1M, 10M rows)
bench:
	scripts/bench.sh

## bench-scale: the scale mode (e2e/bench/scale.go): req/s and p99 through HAProxy with 1, 2 and 3 svc-api replicas, where the CPU went
.PHONY: bench-scale
bench-scale:
	scripts/bench.sh scale

## release-cli: everything served from {site_url}/developers/ into dist/, reproducibly, from the released module versions (make proxy, GOWORK=off): svc archives for linux, darwin, windows × amd64, arm64 with a CycloneDX SBOM each, the npm package svc-cli-<v>.tgz, MCP Bundles signed with mcpb sign, server.json, install-svc.sh, the provenance statement, SHA256SUMS and its minisign signature SHA256SUMS.minisig (CLI_VERSION: default and only svc-cli's version in versions.yaml; SITE_URL; keys from SVC_RELEASE_KEY_FILE, SVC_MCPB_CERT, SVC_MCPB_KEY outside the repository, or THROWAWAY_KEYS=1 for a demo: RELEASING.md)
release-cli: build
	SITE_URL='$(SITE_URL)' THROWAWAY_KEYS='$(THROWAWAY_KEYS)' scripts/release-cli.sh $(CLI_VERSION)

clean:
	rm -rf bin dist
