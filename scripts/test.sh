#!/usr/bin/env bash
# The whole test suite, with all of its set-up, on a fresh machine: bash scripts/test.sh (= npm test)
#   1. Node.js 24 on PATH when the system node is older than 22 (scripts/node-env.sh)
#   2. dependencies from the lockfile, type-check and lint (examples, bench and scripts included)
#   3. unit, emulator, client, provider, native-plugin, CLI, hostile-server and packaging tests
#      (vitest; its global setup builds dist/)
#   4. the native provider's SDKs: regenerated from the schema and compared, then compiled
#      (Node.js with tsc, Python byte-compiled, Go built and vetted) by scripts/sdk-check.sh
#   5. end-to-end tests through the real Pulumi CLI and the YAML language host (scripts/engine.sh and
#      scripts/engine-yaml.sh resolve or build them), on a PostgreSQL state backend for the pipeline
# Set PWE_SKIP_INSTALL=1 to reuse node_modules while iterating.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node-env.sh
echo "[test] node $(node --version), npm $(npm --version 2>/dev/null)"

if [ "${PWE_SKIP_INSTALL:-}" != "1" ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
npm run --silent check
# Each vitest run builds dist/ itself (its global setup), so the build is not repeated here.

npx vitest run --config vitest.config.mts

bash scripts/sdk-check.sh

source scripts/engine.sh
source scripts/engine-yaml.sh
bash scripts/ensure-postgres.sh
npx vitest run --config vitest.e2e.config.mts
