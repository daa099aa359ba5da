#!/usr/bin/env bash
# The benchmark: npm run bench (see bench/run.mjs for the knobs, e.g. BENCH_QUICK=1 for a smoke run).
#   1. Node.js >= 22.19 on PATH (scripts/node-env.sh); dependencies from the lockfile if node_modules is missing
#   2. the real Pulumi CLI on PATH (scripts/engine.sh), and the YAML language host for the native face's rows
#      (scripts/engine-yaml.sh; without it those rows are skipped with a note)
#   3. build dist/, then bench/run.mjs: packs the package, installs it under .e2e/bench, drives the CLI
#      against an in-process emulator, and prints one table (also written to bench/results/results.md)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node-env.sh
pwe_ensure_node_modules
source scripts/engine.sh
source scripts/engine-yaml.sh || echo "[bench] no YAML language host: the native face's rows will be skipped" >&2
npm run --silent build
exec node bench/run.mjs "$@"
