#!/usr/bin/env bash
# npm run soak:model: the model-based concurrency test at soak size (MODEL_SCHEDULES, default 400;
# CI runs 40). Not part of CI: about 40 minutes on two idle cores. A violation prints its seed and
# the line that replays it (MODEL_SEED=<n> MODEL_SCHEDULES=1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node-env.sh
if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
source scripts/engine.sh
MODEL_SCHEDULES="${MODEL_SCHEDULES:-400}" exec npx vitest run --config vitest.e2e.config.mts test/e2e/model.test.ts "$@"
