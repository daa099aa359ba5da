#!/usr/bin/env bash
# The whole test suite, with all of its set-up, on a fresh machine: bash scripts/test.sh
#   1. Node.js 24 on PATH when the system node is older than 22 (scripts/node-env.sh)
#   2. dependencies from the lockfile, type-check and lint (examples included)
#   3. unit, emulator, provider and provider-host tests (vitest; its global setup builds dist/)
#   4. end-to-end tests through the real Pulumi CLI (scripts/engine.sh resolves or builds it)
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

source scripts/engine.sh
bash scripts/ensure-postgres.sh
npx vitest run --config vitest.e2e.config.mts
