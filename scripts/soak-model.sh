#!/usr/bin/env bash
# npm run soak:model: the model-based concurrency test at soak size (MODEL_SCHEDULES, default 1000,
# of MODEL_STEPS, default 3, steps; CI runs 200 of 2). Not part of CI: hours on two idle cores. A
# violation prints its seed and the line that replays it (MODEL_SEED=<n> MODEL_SCHEDULES=1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node-env.sh
pwe_ensure_node_modules
source scripts/engine.sh
MODEL_SCHEDULES="${MODEL_SCHEDULES:-1000}" MODEL_STEPS="${MODEL_STEPS:-3}" exec npx vitest run --config vitest.e2e.config.mts test/e2e/model.test.ts "$@"
