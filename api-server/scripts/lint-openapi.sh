#!/usr/bin/env bash
# Lints api-server/openapi.yaml with Redocly CLI, pinned in package.json and
# package-lock.json. Installs it (npm ci) on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v npm >/dev/null 2>&1 || { echo "lint-openapi: npm is required (Node.js 20.19+ or 22.12+)" >&2; exit 1; }
if [ ! -x node_modules/.bin/redocly ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
node_modules/.bin/redocly lint --config redocly.yaml openapi.yaml
