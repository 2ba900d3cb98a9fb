# Snapshot Developer Service: build, test and lint every module of the workspace.
SHELL := /bin/bash
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
SITE_URL ?= https://adsnap.example
ldflags = -s -w -X $(1).version=$(VERSION) -X $(1).commit=$(COMMIT) -X $(1).date=$(DATE)

.PHONY: all build test lint services clean release-cli demo bench

all: build

## build: binaries into bin/
build:
	@mkdir -p bin
	cd keys-admin && go build -trimpath -ldflags '$(call ldflags,github.com/adsnap/svc/keys-admin/cli)' -o ../bin/keys-admin ./cmd/keys-admin
	cd svc-cli && go build -trimpath -ldflags '$(call ldflags,github.com/adsnap/svc/svc-cli/internal/build) -X github.com/adsnap/svc/svc-cli/internal/build.siteURL=$(SITE_URL)' -o ../bin/svc ./cmd/svc
	cd api-server && go build -trimpath -ldflags '$(call ldflags,github.com/adsnap/svc/api-server/internal/cli)' -o ../bin/svc-api ./cmd/svc-api

## services: make PostgreSQL and Redis reachable (start them if installed)
services:
	@scripts/services.sh

## test: every module's tests, integration included (needs PostgreSQL and Redis; starts them; installs Chromium for the browser test), then each fuzz target for 10 s
test: services
	scripts/test-deps.sh
	scripts/test.sh
	scripts/fuzz.sh

## lint: gofmt check and go vet in every module, OpenAPI lint (Redocly CLI, pinned in api-server/package.json)
lint:
	scripts/lint.sh
	api-server/scripts/lint-openapi.sh

## demo: build the binaries and run svc-api on built-in demo data (SQLite under ./.data; no PostgreSQL or Redis)
demo: build
	bin/svc-api demo

## bench: performance harness (about 8 min: wrk c=64, baseline vs svc-api at 1,000,000 rows, scale run up to 10,000,000 rows); results in bench/results/
bench:
	scripts/bench.sh

## bench-scale: the scale mode (e2e/bench/scale.go): req/s and p99 through HAProxy with 1, 2 and 3 svc-api replicas, where the CPU went
.PHONY: bench-scale
bench-scale:
	scripts/bench.sh scale

## release-cli: svc archives for 5 platforms and SHA256SUMS in dist/ (CLI_VERSION=1.0.0; default: newest svc-cli/v* tag)
release-cli:
	SITE_URL='$(SITE_URL)' scripts/release-cli.sh $(CLI_VERSION)

clean:
	rm -rf bin dist
