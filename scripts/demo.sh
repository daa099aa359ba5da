#!/usr/bin/env bash
# The demo, with all of its set-up, on a fresh machine:   bash scripts/demo.sh
#
#   1. Node.js 24 on PATH when the system node is older than 22 (scripts/node-env.sh);
#      `npm ci` when node_modules is missing or older than package-lock.json
#   2. build (dist/) and link this checkout as node_modules/pulumi-webhook-endpoints (scripts/link-self.sh)
#   3. the Pulumi CLI, language host and dynamic-provider plugin (scripts/engine.sh; cached after the first build)
#   4. the local emulator of the webhook API in the background, with a fresh random token (never printed)
#      and its endpoints persisted in $PWE_DEMO_DIR/emulator.json
#   5. stack webhooks-demo/dev (Pulumi.yaml at the repository root runs examples/quickstart): pulumi up
#   6. stack webhooks-consumer/dev (examples/multi-stack/consumer) reads signSecret through StackReference
#   7. stack webhooks-yaml/dev (examples/yaml): an endpoint declared in Pulumi YAML through the native provider
#      plugin pulumi-resource-webhooks (scripts/engine-yaml.sh puts the YAML language host on PATH)
#   8. how to look around, and how to clean up
#
# Everything lives in $PWE_DEMO_DIR (default .demo/ in the checkout, git-ignored): the file:// state backend,
# PULUMI_HOME, the stack config files (kept out of the repository, passed with --config-file), the emulator's
# records, log and pid. Running it again reuses the stacks and restarts the emulator on its persisted records,
# so the second `pulumi up` changes nothing.
#
#   bash scripts/demo.sh --clean     stops the emulator and removes $PWE_DEMO_DIR with the demo's stacks
#
# Environment: PWE_DEMO_DIR (another directory, e.g. for tests), PWE_DEMO_PASSPHRASE (the passphrase that
# encrypts the stacks' secrets; default "webhooks-demo-passphrase"; choose it before the first run or after
# --clean), PWE_DEMO_STOP_EMULATOR=1 (stop the emulator at the end, for CI), PWE_SKIP_INSTALL=1 (never npm ci).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
DEMO_DIR="$(realpath -m "${PWE_DEMO_DIR:-$ROOT/.demo}")"
PASSPHRASE="${PWE_DEMO_PASSPHRASE:-webhooks-demo-passphrase}"
STACK=dev
PRODUCER=webhooks-demo
CONSUMER=webhooks-consumer
YAML_PROJECT=webhooks-yaml
YAML_DIR="$ROOT/examples/yaml"
CONSUMER_DIR="$ROOT/examples/multi-stack/consumer"
PRODUCER_SCRATCH="$DEMO_DIR/projects/$PRODUCER"
CONSUMER_SCRATCH="$DEMO_DIR/projects/$CONSUMER"
PRODUCER_CONFIG="$PRODUCER_SCRATCH/Pulumi.$STACK.yaml"
CONSUMER_CONFIG="$CONSUMER_SCRATCH/Pulumi.$STACK.yaml"
YAML_SCRATCH="$DEMO_DIR/projects/$YAML_PROJECT"
YAML_CONFIG="$YAML_SCRATCH/Pulumi.$STACK.yaml"
PID_FILE="$DEMO_DIR/emulator.pid"
EMULATOR_LOG="$DEMO_DIR/emulator.log"
EMULATOR_DATA="$DEMO_DIR/emulator.json"
MARKER="$DEMO_DIR/.pwe-demo"
TOTAL_STEPS=8
CLEAN_CMD="bash scripts/demo.sh --clean"
[ -z "${PWE_DEMO_DIR:-}" ] || CLEAN_CMD="PWE_DEMO_DIR='$DEMO_DIR' $CLEAN_CMD"

usage() {
  cat <<EOF
Usage: bash scripts/demo.sh            run the demo (sets everything up first)
       bash scripts/demo.sh --clean    stop the demo's emulator and remove ${DEMO_DIR/#$ROOT\//} with the demo's stacks
EOF
}

MODE=run
case "${1:-}" in
  "") ;;
  --clean) MODE=clean ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac
[ $# -le 1 ] || { usage >&2; exit 2; }

# Refuse directories that would be dangerous to rm -rf, whatever PWE_DEMO_DIR says.
case "$DEMO_DIR" in
  / | "$ROOT" | "$HOME" | "$(dirname "$ROOT")") echo "demo: PWE_DEMO_DIR=$DEMO_DIR is not a safe place for the demo's files" >&2; exit 2 ;;
esac

cd "$ROOT"
show_path() { case "$1" in "$ROOT"/*) echo "${1#"$ROOT"/}" ;; *) echo "$1" ;; esac; }

# ----------------------------------------------------------------------------------------------------
# Output helpers

CURRENT_STEP=""
STEP_NO=0
step() {
  STEP_NO=$((STEP_NO + 1))
  CURRENT_STEP="$1"
  printf '\n[%d/%d] %s\n' "$STEP_NO" "$TOTAL_STEPS" "$1"
}
info() { printf '      %s\n' "$*"; }
shown() { sed -u 's/^/      | /'; }

# Runs a set-up command with its output kept in a log; shows the log only if the command fails.
quietly() {
  local what="$1" log
  shift
  mkdir -p "$DEMO_DIR/logs"
  log="$DEMO_DIR/logs/last-command.log"
  if "$@" >"$log" 2>&1; then
    return 0
  else
    local rc=$?
    printf '\ndemo: %s failed (exit %d). Its output (%s):\n' "$what" "$rc" "$(show_path "$log")" >&2
    tail -n 40 "$log" | sed 's/^/  /' >&2
    exit "$rc"
  fi
}

# ----------------------------------------------------------------------------------------------------
# The emulator

# True when $1 is the pid of this demo directory's emulator (not a recycled pid, not another demo's).
is_demo_emulator() {
  local pid="$1" cmdline
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  cmdline="$( { tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)" || return 1
  case "$cmdline" in *"emulator/bin.js"*"--persist $EMULATOR_DATA"*) return 0 ;; *) return 1 ;; esac
}

# Stops the emulator named in the pid file, if it is running; prints what it did.
stop_emulator() {
  local pid i
  [ -f "$PID_FILE" ] || return 0
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  if is_demo_emulator "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 50); do
      is_demo_emulator "$pid" || break
      sleep 0.1
    done
    if is_demo_emulator "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
    info "stopped the emulator (pid $pid)"
  fi
  rm -f "$PID_FILE"
}

EMULATOR_URL=""
EMULATOR_STARTED_HERE=0
# Starts the emulator in the background with the token in $DEMO_TOKEN; sets EMULATOR_URL.
start_emulator() {
  local pid
  : >"$EMULATOR_LOG"
  # The token goes in through the environment, not --token, so it never shows in `ps`.
  WEBHOOKS_ACCESS_TOKEN="$DEMO_TOKEN" nohup node "$ROOT/dist/emulator/bin.js" --port 0 --host 127.0.0.1 \
    --persist "$EMULATOR_DATA" </dev/null >>"$EMULATOR_LOG" 2>&1 &
  pid=$!
  echo "$pid" >"$PID_FILE"
  EMULATOR_STARTED_HERE=1
  # The harness reads the emulator's "listening on <url>" line (the one place that parses it), waiting up
  # to 15 s while the process lives; on failure it says why on stderr.
  local why
  if ! EMULATOR_URL="$(node "$ROOT/scripts/harness/emulator.mjs" wait-url "$EMULATOR_LOG" "$pid" 15000 2>"$DEMO_DIR/logs/emulator-start.err")"; then
    why="$(cat "$DEMO_DIR/logs/emulator-start.err" 2>/dev/null)"
    echo "demo: ${why:-the emulator did not start}. Its log ($(show_path "$EMULATOR_LOG")):" >&2
    sed 's/^/  /' "$EMULATOR_LOG" >&2
    exit 1
  fi
}

# ----------------------------------------------------------------------------------------------------
# Pulumi, confined to the demo directory

pulumi_env() {
  export PULUMI_HOME="$DEMO_DIR/pulumi-home"
  export PULUMI_BACKEND_URL="file://$DEMO_DIR/state"
  export PULUMI_CONFIG_PASSPHRASE="$PASSPHRASE"
  unset PULUMI_CONFIG_PASSPHRASE_FILE
}

# A minimal copy of a project's Pulumi.yaml (name and runtime only) under the demo directory. Stacks are
# created from it, so `pulumi stack init` writes the stack config file (with its encryption salt) there and
# not into the repository; the real program then runs with --config-file pointing at that file.
scratch_project() {
  mkdir -p "$1"
  printf 'name: %s\nruntime: nodejs\n' "$2" >"$1/Pulumi.yaml"
}

# ----------------------------------------------------------------------------------------------------
# --clean

if [ "$MODE" = clean ]; then
  echo "Cleaning up the demo in $(show_path "$DEMO_DIR")"
  stop_emulator
  if [ ! -e "$DEMO_DIR" ]; then
    info "nothing to remove: $(show_path "$DEMO_DIR") does not exist"
    exit 0
  fi
  if [ ! -f "$MARKER" ]; then
    echo "demo: refusing to remove $DEMO_DIR: it was not made by scripts/demo.sh (no $(basename "$MARKER") in it)" >&2
    exit 1
  fi
  if [ -d "$DEMO_DIR/state/.pulumi" ]; then
    # Remove the stacks through the CLI when it is at hand (never build it just to clean up); the state
    # directory goes with $DEMO_DIR in any case.
    # shellcheck source=/dev/null
    if { source scripts/node-env.sh && PWE_ENGINE_NO_BUILD=1 source scripts/engine.sh; } >/dev/null 2>&1; then
      pulumi_env
      for project in "$YAML_PROJECT" "$CONSUMER" "$PRODUCER"; do
        scratch_project "$DEMO_DIR/projects/$project" "$project"
        if pulumi stack rm "organization/$project/$STACK" --yes --force --non-interactive \
          --cwd "$DEMO_DIR/projects/$project" >/dev/null 2>&1; then
          info "removed stack $project/$STACK"
        fi
      done
    fi
  fi
  rm -rf "$DEMO_DIR"
  info "removed $(show_path "$DEMO_DIR") (state, PULUMI_HOME, stack config, the emulator's records and log)"
  info "The webhook endpoints only ever existed in the emulator, so nothing is left anywhere else."
  exit 0
fi

# The native provider plugin, as `npm install -g pulumi-webhook-endpoints` would put it on PATH: a
# pulumi-resource-webhooks in the demo's own bin directory that runs this checkout's build.
native_plugin_on_path() {
  mkdir -p "$DEMO_DIR/bin"
  printf '#!/bin/sh\nexec node "%s/dist/native/bin.js" "$@"\n' "$ROOT" >"$DEMO_DIR/bin/pulumi-resource-webhooks"
  chmod +x "$DEMO_DIR/bin/pulumi-resource-webhooks"
  export PATH="$DEMO_DIR/bin:$PATH"
}

# ----------------------------------------------------------------------------------------------------
# The demo

if [ -e "$DEMO_DIR" ] && [ ! -f "$MARKER" ] && [ -n "$(ls -A "$DEMO_DIR" 2>/dev/null)" ]; then
  echo "demo: $DEMO_DIR exists and was not made by scripts/demo.sh; set PWE_DEMO_DIR to another directory" >&2
  exit 1
fi

on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  if [ "$rc" -ne 0 ]; then
    if [ "$EMULATOR_STARTED_HERE" = 1 ]; then stop_emulator >/dev/null 2>&1 || true; fi
    printf '\ndemo: FAILED at step %d/%d (%s), exit code %d.\n' "$STEP_NO" "$TOTAL_STEPS" "$CURRENT_STEP" "$rc" >&2
    if [ "$EMULATOR_STARTED_HERE" = 1 ]; then echo "demo: the emulator it started has been stopped." >&2; fi
    echo "demo: fix the problem above and run the demo again; '$CLEAN_CMD' starts over from nothing." >&2
  fi
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "pulumi-webhook-endpoints demo: a webhook endpoint declared in Pulumi, its signing secret handed to another stack"
echo "(files: $(show_path "$DEMO_DIR")/; set-up output is kept in $(show_path "$DEMO_DIR")/logs/ and shown only on failure)"
mkdir -p "$DEMO_DIR/logs"
touch "$MARKER"

# 1 ---------------------------------------------------------------------------------------------------
step "Node.js and dependencies"
# shellcheck source=scripts/node-env.sh
source scripts/node-env.sh
info "node $(node --version) at $(command -v node)"
if [ "${PWE_SKIP_INSTALL:-}" = 1 ]; then
  [ -d node_modules ] || { echo "demo: PWE_SKIP_INSTALL=1 but node_modules is missing" >&2; exit 1; }
  info "node_modules: kept as is (PWE_SKIP_INSTALL=1)"
elif [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  info "installing dependencies from package-lock.json (npm ci) ..."
  quietly "npm ci" npm ci --no-audit --no-fund --loglevel=error
  info "dependencies installed"
else
  info "node_modules is up to date with package-lock.json"
fi

# 2 ---------------------------------------------------------------------------------------------------
step "Build the package and link it for the demo's programs"
quietly "npm run build (tsc -p tsconfig.build.json)" npm run --silent build
quietly "scripts/link-self.sh" bash scripts/link-self.sh
info "dist/ built; node_modules/pulumi-webhook-endpoints -> this checkout"

# 3 ---------------------------------------------------------------------------------------------------
step "The Pulumi CLI"
# Prints nothing when cached; on a fresh machine it builds the CLI from Go modules once (a few minutes).
# shellcheck source=scripts/engine.sh
source scripts/engine.sh
info "$(pulumi version) at $(command -v pulumi) (Node.js language host: ${PWE_LANGUAGE_HOST:-real})"

# 4 ---------------------------------------------------------------------------------------------------
step "The webhook API emulator"
stop_emulator
DEMO_TOKEN="$(node -e 'process.stdout.write("demo_" + require("node:crypto").randomBytes(24).toString("base64url"))')"
start_emulator
info "listening on $EMULATOR_URL (pid $(cat "$PID_FILE"), log $(show_path "$EMULATOR_LOG"))"
info "access token: freshly generated for this run; it goes to the emulator and, encrypted, into stack config only"
if [ -s "$EMULATOR_DATA" ]; then
  info "endpoints from earlier runs were loaded from $(show_path "$EMULATOR_DATA")"
else
  info "endpoints will be kept in $(show_path "$EMULATOR_DATA") across restarts"
fi

# 5 ---------------------------------------------------------------------------------------------------
step "Stack $PRODUCER/$STACK: declare the endpoint (examples/quickstart via ./Pulumi.yaml)"
pulumi_env
info "state backend: $PULUMI_BACKEND_URL  (PULUMI_HOME=$(show_path "$PULUMI_HOME"))"
info "stack secrets are encrypted with the demo passphrase \"$PASSPHRASE\" (PULUMI_CONFIG_PASSPHRASE);"
info "to use your own, set PWE_DEMO_PASSPHRASE before the first run (or after --clean)"
mkdir -p "$DEMO_DIR/state" "$PULUMI_HOME"
quietly "pulumi login" pulumi login "$PULUMI_BACKEND_URL" --non-interactive
scratch_project "$PRODUCER_SCRATCH" "$PRODUCER"
scratch_project "$CONSUMER_SCRATCH" "$CONSUMER"
quietly "pulumi stack select --create $STACK" pulumi stack select --create "$STACK" --cwd "$PRODUCER_SCRATCH" --non-interactive
quietly "pulumi stack select $STACK" pulumi stack select "$STACK" --non-interactive
quietly "pulumi config set webhooks:baseUrl" \
  pulumi config set webhooks:baseUrl "$EMULATOR_URL" --config-file "$PRODUCER_CONFIG" --non-interactive
# The value comes in on stdin (printf is a builtin): never on a command line, on disk or on screen.
printf '%s' "$DEMO_TOKEN" | quietly "pulumi config set --secret webhooks:accessToken" \
  pulumi config set --secret webhooks:accessToken --config-file "$PRODUCER_CONFIG" --non-interactive
info "config: webhooks:baseUrl=$EMULATOR_URL, webhooks:accessToken=[secret]"
info "\$ pulumi up --yes"
pulumi up --yes --skip-preview --suppress-progress --config-file "$PRODUCER_CONFIG" --non-interactive 2>&1 | shown
info "\$ pulumi stack output"
pulumi stack output --non-interactive 2>&1 | shown

# 6 ---------------------------------------------------------------------------------------------------
step "Stack $CONSUMER/$STACK: read signSecret through a StackReference (examples/multi-stack/consumer)"
quietly "pulumi stack select --create $STACK ($CONSUMER)" \
  pulumi stack select --create "$STACK" --cwd "$CONSUMER_SCRATCH" --non-interactive
quietly "pulumi stack select $STACK ($CONSUMER)" pulumi stack select "$STACK" --cwd "$CONSUMER_DIR" --non-interactive
quietly "pulumi config set producerStack" \
  pulumi config set producerStack "organization/$PRODUCER/$STACK" --config-file "$CONSUMER_CONFIG" --cwd "$CONSUMER_DIR" --non-interactive
info "config: producerStack=organization/$PRODUCER/$STACK"
info "\$ pulumi up --yes"
pulumi up --yes --skip-preview --suppress-progress --config-file "$CONSUMER_CONFIG" --cwd "$CONSUMER_DIR" --non-interactive 2>&1 | shown
info "\$ pulumi stack output"
pulumi stack output --cwd "$CONSUMER_DIR" --non-interactive 2>&1 | shown
info "receivedSignSecret is the producer's signSecret; it arrived as a secret and stays one."

# 7 ---------------------------------------------------------------------------------------------------
step "Stack $YAML_PROJECT/$STACK: an endpoint declared in Pulumi YAML, through the native provider (examples/yaml)"
# Prints nothing when cached; on a fresh machine it builds the YAML language host from Go modules once
# (a few minutes); the first call keeps that build's output in the log.
quietly "scripts/engine-yaml.sh (the Pulumi YAML language host)" bash -c 'source scripts/engine.sh && source scripts/engine-yaml.sh'
# shellcheck source=scripts/engine-yaml.sh
source scripts/engine-yaml.sh
native_plugin_on_path
info "YAML language host: $(command -v pulumi-language-yaml); plugin: $(show_path "$(command -v pulumi-resource-webhooks)")"
scratch_project "$YAML_SCRATCH" "$YAML_PROJECT"
quietly "pulumi stack select --create $STACK ($YAML_PROJECT)" \
  pulumi stack select --create "$STACK" --cwd "$YAML_SCRATCH" --non-interactive
quietly "pulumi stack select $STACK ($YAML_PROJECT)" pulumi stack select "$STACK" --cwd "$YAML_DIR" --non-interactive
quietly "pulumi config set webhooks:baseUrl ($YAML_PROJECT)" \
  pulumi config set webhooks:baseUrl "$EMULATOR_URL" --config-file "$YAML_CONFIG" --cwd "$YAML_DIR" --non-interactive
printf '%s' "$DEMO_TOKEN" | quietly "pulumi config set --secret webhooks:accessToken ($YAML_PROJECT)" \
  pulumi config set --secret webhooks:accessToken --config-file "$YAML_CONFIG" --cwd "$YAML_DIR" --non-interactive
# Another URL than the TypeScript stack's: the same name and URL would be refused as someone else's endpoint.
quietly "pulumi config set webhookUrl ($YAML_PROJECT)" \
  pulumi config set webhookUrl "https://example.com/hooks/orders-from-yaml" --config-file "$YAML_CONFIG" --cwd "$YAML_DIR" --non-interactive
info "config: webhooks:baseUrl=$EMULATOR_URL, webhooks:accessToken=[secret], webhookUrl=https://example.com/hooks/orders-from-yaml"
info "\$ pulumi up --yes"
pulumi up --yes --skip-preview --suppress-progress --config-file "$YAML_CONFIG" --cwd "$YAML_DIR" --non-interactive 2>&1 | shown
info "\$ pulumi stack output"
pulumi stack output --cwd "$YAML_DIR" --non-interactive 2>&1 | shown
info "the same resource from any Pulumi language: webhooks:index:WebhookEndpoint, its signSecret stored encrypted."

# 8 ---------------------------------------------------------------------------------------------------
step "Look around, then clean up"
if [ "${PWE_DEMO_STOP_EMULATOR:-}" = 1 ]; then
  stop_emulator
  EMULATOR_NOTE="# (the emulator is stopped: PWE_DEMO_STOP_EMULATOR=1; run the demo again to restart it)"
else
  EMULATOR_NOTE="# (the emulator keeps running in the background, pid $(cat "$PID_FILE"); --clean stops it)"
fi
EMULATOR_STARTED_HERE=0
cat <<EOF

  In your shell, from $ROOT:

    # pulumi on PATH, and the demo's backend, PULUMI_HOME and passphrase:
    source scripts/node-env.sh && source scripts/engine.sh
    export PULUMI_HOME='$PULUMI_HOME'
    export PULUMI_BACKEND_URL='$PULUMI_BACKEND_URL'
    export PULUMI_CONFIG_PASSPHRASE='$PASSPHRASE'

    # the stacks' outputs; WARNING: --show-secrets prints signSecret in plaintext
    pulumi stack output --show-secrets
    pulumi stack output --show-secrets --cwd examples/multi-stack/consumer
    pulumi stack output --show-secrets --cwd examples/yaml

    # the producer's plan against the service: no changes
    pulumi preview --config-file '$PRODUCER_CONFIG'

    # the emulator's records (its admin token is in its log); WARNING: shows every sign_secret in plaintext
    curl -s -H "Authorization: Bearer \$(sed -n 's/^.*admin token: //p' '$EMULATOR_LOG' | head -n 1)" $EMULATOR_URL/__emulator/records
    $EMULATOR_NOTE

  Clean up (stops the emulator, removes $(show_path "$DEMO_DIR")/ with the three stacks and the emulator's records):

    $CLEAN_CMD

EOF
