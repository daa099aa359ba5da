#!/usr/bin/env bash
# npm run soak:model: the model-based concurrency test (test/e2e/model.test.ts) at soak size. Not part of
# CI: hours on two idle cores.
#
#   npm run soak:model                 1,000 schedules of 3 steps (MODEL_SCHEDULES, MODEL_STEPS)
#   npm run soak:model -- 5000         a count of schedules
#   npm run soak:model -- 2h           a duration (90s, 20m, 2h): schedules until it is spent
#   MODEL_SEED=<n> MODEL_SCHEDULES=1 MODEL_STEPS=2 npm run soak:model
#                                      replays one schedule: the line a violation prints
# Seeds are consecutive from MODEL_SEED, else from a base derived from the commit and the date, printed
# at the start (test/e2e/model-plan.ts). Other arguments go to vitest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
case "${1:-}" in
  "" | -*) ;;
  *[!0-9]*)
    [[ "$1" =~ ^[0-9]+[smh]$ ]] || { echo "usage: npm run soak:model [-- <count> | <duration: 90s, 20m, 2h>]" >&2; exit 2; }
    export MODEL_BUDGET="$1" MODEL_SCHEDULES="${MODEL_SCHEDULES:-1000000}"; shift ;;
  *) export MODEL_SCHEDULES="$1"; shift ;;
esac
source scripts/node-env.sh
pwe_ensure_node_modules
source scripts/engine.sh
export PWE_TIER=deep MODEL_SCHEDULES="${MODEL_SCHEDULES:-1000}" MODEL_STEPS="${MODEL_STEPS:-3}"
exec npx vitest run --config vitest.e2e.config.mts --project engine test/e2e/model.test.ts "$@"
