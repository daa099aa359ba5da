#!/usr/bin/env bash
# The benchmark: npm run bench (see bench/run.mjs for the knobs, e.g. BENCH_QUICK=1 for a smoke run).
#   1. Node.js >= 22 on PATH (scripts/node-env.sh); dependencies from the lockfile if node_modules is missing
#   2. the real Pulumi CLI on PATH (scripts/engine.sh)
#   3. build dist/, then bench/run.mjs: packs the package, installs it under .e2e/bench, drives the CLI
#      against an in-process emulator, and prints one table (also written to .e2e/bench/results.md)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node-env.sh
if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
source scripts/engine.sh
npm run --silent build
exec node bench/run.mjs "$@"
