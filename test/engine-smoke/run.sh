#!/usr/bin/env bash
# Smoke test for scripts/engine.sh: runs a tiny real Pulumi project (one dynamic resource, TypeScript)
# through the real Pulumi CLI and engine, with a local file backend in a temp dir.
#
#   bash test/engine-smoke/run.sh        (KEEP=1 keeps the temp dir for inspection)
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd "$here/../.." && pwd -P)"
cd "$root" || exit 1

now_ms() { date +%s%3N; }
t0=$(now_ms)
# shellcheck source=../../scripts/node-env.sh
source "$root/scripts/node-env.sh" || exit 1
# shellcheck source=../../scripts/engine.sh
source "$root/scripts/engine.sh" || { echo "engine-smoke: scripts/engine.sh failed" >&2; exit 1; }
echo "engine-smoke: engine ready in $(( $(now_ms) - t0 )) ms: $(pulumi version) ($PWE_PULUMI), language host: $PWE_LANGUAGE_HOST, node $(node --version)"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/engine-smoke.XXXXXX")"
if [ -n "${KEEP:-}" ]; then echo "engine-smoke: keeping $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi

# Everything Pulumi writes goes under $tmp: no ~/.pulumi credentials or workspace state are touched.
export PULUMI_HOME="$tmp/pulumi-home"
export PULUMI_CONFIG_PASSPHRASE=test
mkdir -p "$tmp/state" "$tmp/project"
cp "$here/Pulumi.yaml" "$here/package.json" "$here/tsconfig.json" "$here/index.ts" "$tmp/project/"
ln -s "$root/node_modules" "$tmp/project/node_modules"
cd "$tmp/project" || exit 1

passed=0
failed=0
# step NAME COMMAND...: runs COMMAND, logs to $tmp/NAME.log, prints elapsed time; stops at the first failure.
step() {
  local name="$1" start rc
  shift
  start=$(now_ms)
  "$@" >"$tmp/$name.log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
    printf 'engine-smoke: ok   %-8s %6d ms  (%s)\n' "$name" "$(( $(now_ms) - start ))" "$*"
  else
    failed=$((failed + 1))
    printf 'engine-smoke: FAIL %-8s %6d ms  exit %d  (%s)\n' "$name" "$(( $(now_ms) - start ))" "$rc" "$*"
    sed 's/^/    | /' "$tmp/$name.log"
    finish
  fi
}
# check NAME DESCRIPTION CONDITION-COMMAND...
check() {
  local name="$1" what="$2"
  shift 2
  if "$@"; then
    passed=$((passed + 1))
    echo "engine-smoke: ok   $name: $what"
  else
    failed=$((failed + 1))
    echo "engine-smoke: FAIL $name: $what"
    finish
  fi
}
finish() {
  echo "engine-smoke: total $(( $(now_ms) - t0 )) ms"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}

step login   pulumi login "file://$tmp/state"
step init    pulumi stack init dev --non-interactive
step config  pulumi config set --secret x y
step up      pulumi up --yes --skip-preview --non-interactive
check up-output "program and provider output reach the CLI" \
  grep -q "engine-smoke: provider create called" "$tmp/up.log"
step preview pulumi preview --expect-no-changes --non-interactive
step export  pulumi stack export --file "$tmp/stack.json"
check export "state has the dynamic resource with outs {a: 1}" \
  node -e '
    const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const r = (s.deployment.resources || []).find((r) => r.type === "pulumi-nodejs:dynamic:Resource");
    if (!r || r.id !== "x" || r.outputs.a !== 1) { console.error(JSON.stringify(r)); process.exit(1); }
    const stack = s.deployment.resources.find((r) => r.type === "pulumi:pulumi:Stack");
    if (stack.outputs.a !== 1 || stack.outputs.secretLength["4dabf18193072939515e22adb298388d"] === undefined) process.exit(1);
  ' "$tmp/stack.json"
step output  pulumi stack output a
check output "stack output a is 1" test "$(cat "$tmp/output.log")" = 1
step destroy pulumi destroy --yes --non-interactive
step rm      pulumi stack rm dev --yes --non-interactive
finish
