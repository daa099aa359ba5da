#!/usr/bin/env bash
# The test suite in tiers (docs/testing.md), with all of its set-up, on a fresh machine.
#
#   bash scripts/test.sh          npm test, what CI runs (.ci/run): every stage below
#   bash scripts/test.sh --deep   npm run test:deep: what npm test leaves out, and the sized suites at full size
#                                 (--model <count | duration: 90s, 20m, 2h> sizes its model-based test)
#   (the unit tier alone, no set-up: npm run test:unit)
#
# Stages; each one runs even when an earlier one failed, unless it needs what failed (then it is skipped):
#   setup    Node.js 24 on PATH when the system node is older than 22.19 (scripts/node-env.sh), npm ci
#   engine   in the background from the end of setup: the Pulumi CLI and the YAML language
#            host (scripts/engine.sh, scripts/engine-yaml.sh: cached, else built from Go modules) and
#            PostgreSQL's server package (scripts/ensure-postgres.sh); awaited before sdk and e2e
#   check    type-check and lint (examples, bench and scripts included)                        [npm test]
#   unit     the in-process tests (vitest.config.mts; dist/ built only for the files that run it)
#   tools    [test:deep] in the background from the end of setup: rcodesign and qemu for the release
#            archives (scripts/ensure-release-tools.sh: cached, else compiled and installed)
#   package  the packaging checks, the hostile servers (each call in a process of its own), the release build's CLI
#   prepare  the package packed and installed into the end-to-end tests' base project (while the engine builds)
#   sdk      in the background alongside e2e: the native provider's SDKs regenerated from the schema,
#            compared and compiled (scripts/sdk-check.sh; its Go builds reuse the CLI's)        [npm test]
#   release  [test:deep] the release archives for every platform, built twice and run or read (needs tools)
#   e2e      the end-to-end tests through the real Pulumi CLI (vitest.e2e.config.mts)
# It ends with one line per stage (passed, failed or skipped, and seconds; a background stage's own
# duration, and how long the foreground waited for it) and exits non-zero if any stage failed or was skipped.
# What a background stage printed is shown when it is awaited, and kept in .e2e/test-logs/.
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
    --model)
      case "${2:-}" in
        *[!0-9]*|"") [[ "${2:-}" =~ ^[0-9]+[smh]$ ]] || { echo "--model takes a count (300) or a duration (90s, 20m, 2h)" >&2; exit 2; }
                     export MODEL_BUDGET="$2" MODEL_SCHEDULES="${MODEL_SCHEDULES:-1000000}" ;;
        *) export MODEL_SCHEDULES="$2" ;;
      esac
      shift ;;
    --) shift; vitest_args=("$@"); break ;;
    -h|--help) sed -n '2,29p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: bash scripts/test.sh [--deep [--model <count | duration>]] [-- <vitest arguments>]" >&2; exit 2 ;;
  esac
  shift
done
export PWE_TIER="$tier"
# What npm run test:deep selects (test/support/tier.mts): the deep and the budgeted cases.
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

# --- stages in the background ------------------------------------------------------------------------------------
# Each runs in a process group of its own (setsid), so that stopping it stops its Go builds and test processes too.
declare -A bg_pid=() bg_log=()
stop_background() {
  local name
  for name in "${!bg_pid[@]}"; do
    if kill -0 "${bg_pid[$name]}" 2>/dev/null; then kill -TERM -- "-${bg_pid[$name]}" 2>/dev/null; fi
  done
}
trap stop_background EXIT
trap 'stop_background; exit 130' INT TERM

# bg_start NAME NEEDS FUNCTION: starts a stage in the background; bg_wait NAME awaits and records it.
bg_start() {
  local name="$1" needs="$2" fn="$3" need
  for need in ${needs//,/ }; do
    if [ "${status_of[$need]:-}" != passed ]; then
      echo "[test] $name: skipped ($need ${status_of[$need]:-did not run})" >&2
      record "$name" skipped 0 "$need ${status_of[$need]:-did not run}"
      return 0
    fi
  done
  bg_log[$name]="$logs/$name.log"
  export -f "$fn"
  setsid bash -c 'cd "$1" && started=$(date +%s) && { "$2"; rc=$?; } && echo "$(( $(date +%s) - started ))" >"$3.seconds"; exit $rc' \
    _ "$root" "$fn" "${bg_log[$name]}" >"${bg_log[$name]}" 2>&1 </dev/null &
  bg_pid[$name]=$!
  echo "[test] $name: started in the background (log ${bg_log[$name]})" >&2
}
bg_wait() {
  local name="$1" note="${2:-}" rc=0 seconds waited=$(now)
  [ -n "${bg_pid[$name]:-}" ] || return 1  # skipped, and recorded as such
  wait "${bg_pid[$name]}" || rc=$?
  waited=$(( $(now) - waited ))
  unset 'bg_pid[$name]'
  echo "[test] === $name (ran in the background) ===" >&2
  sed 's/^/  | /' "${bg_log[$name]}" >&2
  seconds="$(cat "${bg_log[$name]}.seconds" 2>/dev/null || echo 0)"
  note="in the background${note:+ $note}; waited for: $waited s"
  if [ "$rc" -eq 0 ]; then record "$name" passed "$seconds" "$note"; else record "$name" failed "$seconds" "exit $rc; $note"; fi
  return "$rc"
}

# The engine set-up: what the e2e stage needs. Cached, it takes a second; from an empty home it builds the
# CLI and the YAML host from Go modules (about 500 s of CPU after 40 s of downloads), the longest path to
# the e2e stage: at the same priority as the stages in the foreground, which mostly wait on timers.
engine_setup() {
  source scripts/node-env.sh || return 1
  source scripts/engine.sh || return 1
  source scripts/engine-yaml.sh || return 1
  bash scripts/ensure-postgres.sh || return 1
}
await_engine() {
  bg_wait engine || return 1
  # Cached now: this only resolves what was built and puts it on PATH.
  source scripts/engine.sh && source scripts/engine-yaml.sh || record_failure engine "PATH could not be set"
}
# Marks a stage recorded as passed as failed after all (its last record wins in status_of).
record_failure() { status_of[$1]=failed; stage_status[${#stage_status[@]}-1]=failed; stage_notes[${#stage_notes[@]}-1]="$2"; }

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
sdk() { source scripts/node-env.sh && bash scripts/sdk-check.sh; }
release_tools() { bash scripts/ensure-release-tools.sh; }
release_stage() { npx vitest run --config vitest.e2e.config.mts --project release "${filter[@]}" "${vitest_args[@]}"; }
# The e2e stage's base project (the package packed and installed as a user would), made while the engine is
# still being built: its global setup reuses it if the checkout still packs to the same tarball.
prepare() {
  local token
  token="$(node scripts/harness/e2e-base.mjs prepare)" || return 1
  export PWE_E2E_PREPARED="$token"
}
e2e() { npx vitest run --config vitest.e2e.config.mts --project engine "${filter[@]}" "${vitest_args[@]}"; }

stage setup "" setup
bg_start engine setup engine_setup
[ "$tier" = deep ] && bg_start tools setup release_tools
[ "$tier" = ci ] && stage check setup check
stage unit setup unit
stage package setup package_stage
stage prepare setup prepare
if [ "$tier" = deep ]; then
  bg_wait tools
  stage release tools release_stage
fi
await_engine
# The SDK check (its generators are Go builds that reuse the CLI's) runs alongside the end-to-end tests.
[ "$tier" = ci ] && bg_start sdk engine sdk
stage e2e engine e2e
[ "$tier" = ci ] && bg_wait sdk "alongside e2e"

summary
