#!/usr/bin/env bash
# The test suite in tiers (docs/testing.md), with all of its set-up, on a fresh machine.
#
#   bash scripts/test.sh          npm test, what CI runs (.ci/run): every stage below
#   bash scripts/test.sh --deep   npm run test:deep: what npm test leaves out, and the sized suites at full size
#   (the unit tier alone, no set-up: npm run test:unit)
#
# Stages, in order; each one runs even when an earlier one failed, unless it needs what failed:
#   setup    Node.js 24 on PATH when the system node is older than 22 (scripts/node-env.sh), npm ci
#   engine   (in the background from the start, at low priority, its output kept until it is awaited)
#            the Pulumi CLI and the YAML language host (scripts/engine.sh, scripts/engine-yaml.sh: cached,
#            else built from Go modules), the SDK generators (scripts/sdk-check.sh --generators-only),
#            PostgreSQL's server package (scripts/ensure-postgres.sh)
#   check    type-check and lint (examples, bench and scripts included)                      [npm test]
#   unit     the in-process tests (vitest.config.mts; dist/ built only for the files that run it)
#   package  the packaging checks and the hostile servers, each call in a process of its own
#   sdk      the native provider's SDKs regenerated from the schema, compared, compiled       [npm test]
#   e2e      the end-to-end tests through the real Pulumi CLI (vitest.e2e.config.mts)
# It ends with one line per stage (passed, failed or skipped, and seconds) and exits non-zero if any
# stage failed or could not run.
#
# Set PWE_SKIP_INSTALL=1 to reuse node_modules while iterating. Extra arguments after -- go to every
# vitest run (e.g. -- --reporter=dot).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$(pwd -P)"

tier=ci
vitest_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --deep) tier=deep ;;
    --) shift; vitest_args=("$@"); break ;;
    -h|--help) sed -n '2,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bash scripts/test.sh [--deep] [-- <vitest arguments>]" >&2; exit 2 ;;
  esac
  shift
done
export PWE_TIER="$tier"
# What npm run test:deep selects (test/support/tier.mts, DEEP_FILTER): the deep and the budgeted cases.
filter=()
[ "$tier" = deep ] && filter=(--tags-filter "deep || budgeted" --passWithNoTests)

logs="$root/.e2e/test-logs"
mkdir -p "$logs"
now() { date +%s; }
suite_start=$(now)

# --- stage bookkeeping -----------------------------------------------------------------------------------------
stage_names=() stage_status=() stage_seconds=() stage_notes=()
stage_note=""  # a stage's command may set it: shown after the stage's summary line
declare -A status_of=()
record() { # name status seconds [note]
  stage_names+=("$1") stage_status+=("$2") stage_seconds+=("$3") stage_notes+=("${4:-}")
  status_of[$1]=$2
}
# Runs a stage: stage NAME NEEDS COMMAND...; NEEDS is a comma-separated list of stages that must have passed.
stage() {
  local name="$1" needs="$2" need started rc
  shift 2
  for need in ${needs//,/ }; do
    if [ "${status_of[$need]:-}" != passed ]; then
      echo "[test] $name: skipped ($need ${status_of[$need]:-did not run})" >&2
      record "$name" skipped 0 "$need ${status_of[$need]:-did not run}"
      return 0
    fi
  done
  echo "[test] === $name ===" >&2
  started=$(now)
  "$@"
  rc=$?
  if [ "$rc" -eq 0 ]; then record "$name" passed $(( $(now) - started )) "$stage_note"; else record "$name" failed $(( $(now) - started )) "exit $rc${stage_note:+; $stage_note}"; fi
  stage_note=""
}

summary() {
  local i failed=0 line
  echo >&2
  for i in "${!stage_names[@]}"; do
    line="$(printf '[summary] %-8s %-8s %5d s' "${stage_names[$i]}" "${stage_status[$i]}" "${stage_seconds[$i]}")"
    [ -n "${stage_notes[$i]}" ] && line="$line  (${stage_notes[$i]})"
    echo "$line"
    [ "${stage_status[$i]}" = passed ] || failed=1
  done
  printf '[summary] %-8s %-8s %5d s\n' "total" "$([ "$failed" = 0 ] && echo passed || echo failed)" $(( $(now) - suite_start ))
  return "$failed"
}

# --- the engine set-up, in the background ----------------------------------------------------------------------
engine_pid=""
engine_log="$logs/engine-setup.log"
stop_engine_setup() {
  # The background set-up runs in a process group of its own (setsid): its Go builds go with it.
  if [ -n "$engine_pid" ] && kill -0 "$engine_pid" 2>/dev/null; then kill -TERM -- "-$engine_pid" 2>/dev/null; fi
}
trap stop_engine_setup EXIT
trap 'stop_engine_setup; exit 130' INT TERM

engine_setup() {
  # Sourced in a shell of its own: what it puts on PATH is resolved again (from the cache) when awaited.
  local started=$SECONDS
  source scripts/node-env.sh || return 1
  source scripts/engine.sh || return 1
  source scripts/engine-yaml.sh || return 1
  if [ "$tier" = ci ]; then bash scripts/sdk-check.sh --generators-only || return 1; fi
  bash scripts/ensure-postgres.sh || return 1
  echo "[engine] set-up done in $(( SECONDS - started )) s"
}
start_engine_setup() {
  export -f engine_setup
  # Low priority: the stages in the foreground keep their speed, the Go builds use what they leave idle.
  setsid nice -n 10 bash -c 'cd "$1" && tier="$2" engine_setup' _ "$root" "$tier" >"$engine_log" 2>&1 </dev/null &
  engine_pid=$!
  echo "[test] engine set-up started in the background (pid $engine_pid, log $engine_log)" >&2
}
await_engine_setup() {
  local rc=0
  if [ -n "$engine_pid" ]; then wait "$engine_pid" || rc=$?; fi
  engine_pid=""
  sed 's/^/  | /' "$engine_log" >&2
  [ "$rc" -eq 0 ] || { echo "[test] the engine set-up failed (exit $rc)" >&2; return "$rc"; }
  stage_note="$(sed -n 's/^\[engine\] set-up done in \([0-9]*\) s$/built or found in \1 s in the background/p' "$engine_log")"
  # Cached now: this only resolves what was built and puts it on PATH.
  source scripts/engine.sh && source scripts/engine-yaml.sh
}

# --- the stages --------------------------------------------------------------------------------------------------
setup() {
  source scripts/node-env.sh || return 1
  echo "[test] node $(node --version), npm $(npm --version 2>/dev/null), tier $tier" >&2
  if [ "${PWE_SKIP_INSTALL:-}" != "1" ]; then
    npm ci --no-audit --no-fund --loglevel=error || return 1
  fi
}
check() { npm run --silent check; }
unit() { npx vitest run --config vitest.config.mts "${filter[@]}" "${vitest_args[@]}"; }
package_stage() { npx vitest run --config vitest.e2e.config.mts --project package "${filter[@]}" "${vitest_args[@]}"; }
sdk() { bash scripts/sdk-check.sh; }
e2e() { npx vitest run --config vitest.e2e.config.mts --project engine "${filter[@]}" "${vitest_args[@]}"; }

stage setup "" setup
if [ "${status_of[setup]}" = passed ]; then start_engine_setup; fi
[ "$tier" = ci ] && stage check setup check
stage unit setup unit
stage package setup package_stage
stage engine setup await_engine_setup
[ "$tier" = ci ] && stage sdk engine sdk
stage e2e engine e2e

summary
