# Snapshot Developer Service: build, test and lint every module of the workspace.
SHELL := /bin/bash
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
ldflags = -s -w -X $(1).version=$(VERSION) -X $(1).commit=$(COMMIT) -X $(1).date=$(DATE)

.PHONY: all build test lint services clean

all: build

## build: binaries into bin/
build:
	@mkdir -p bin
	cd keys-admin && go build -trimpath -ldflags '$(call ldflags,github.com/adsnap/svc/keys-admin/cli)' -o ../bin/keys-admin ./cmd/keys-admin

## services: make PostgreSQL and Redis reachable (start them if installed)
services:
	@scripts/services.sh

## test: every module's tests, integration included (needs PostgreSQL and Redis; starts them)
test: services
	scripts/test.sh

## lint: gofmt check and go vet in every module
lint:
	scripts/lint.sh

clean:
	rm -rf bin dist
