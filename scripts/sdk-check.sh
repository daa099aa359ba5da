#!/usr/bin/env bash
# Checks the generated SDKs in sdk/ against the provider schema, and compiles each of them.
#
#   bash scripts/sdk-check.sh            # fail if sdk/ differs from what scripts/sdkgen generates from the schema
#   bash scripts/sdk-check.sh --write    # regenerate sdk/ in place (then compile it, as the check does)
#   bash scripts/sdk-check.sh --generator-path   # build the generators only; print the path of sdkgen
#
# Steps (each prints its duration):
#   1. build the generators scripts/sdkgen (pulumi pkg/v3 v3.259.0: nodejs, python, go) and scripts/sdkgen/dotnet
#      (pulumi-language-dotnet v3.102.0 on pkg/v3 v3.225.0) once, into
#      $cache/sdkgen/<hash of their sources, go.mod/go.sum and the Go version>/ (to temporary names, then renamed)
#   2. generate the SDKs of src/native/schema.json into a temporary directory (sdkgen also runs `go mod tidy` for
#      sdk/go, so go.mod and go.sum are part of what is generated and compared)
#   3. compare with sdk/{nodejs,python,go,dotnet} (or, with --write, replace those directories)
#   4. compile: nodejs  tsc (node_modules/typescript) with the repo's strict options except isolatedModules and
#                       noImplicitOverride (which the generated code does not satisfy), emitting into the
#                       temporary directory; then load the result with Node (resolving @pulumi/pulumi from
#                       node_modules) under Pulumi mocks and create a Provider and a WebhookEndpoint
#               python  python3 -m compileall, and pip wheel of a copy (pyproject.toml; no deprecation warning)
#               go      go build ./... and go vet ./... in sdk/go (-mod=readonly: go.sum must be complete;
#                       -trimpath, as everything else here is built, so the Go build cache is shared); its go.mod's
#                       `go` directive must equal the highest `go` line among its dependencies (the lowest Go it can ask for)
#               dotnet  no .NET SDK here: the .csproj must be well-formed XML and pulumi-plugin.json/version.txt
#                       must agree with the schema; with `dotnet` on PATH, also `dotnet build` of a copy
# Needs: go (on PATH or /usr/local/go/bin/go) and the Go module proxy (or a warm module cache), Node >= 22
# (scripts/node-env.sh provides one), node_modules (npm ci), python3.
# $cache is ${PWE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-webhook-endpoints}; nothing is written in the
# repository except sdk/ with --write.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cache="${PWE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-webhook-endpoints}"
schema="$root/src/native/schema.json"
sdk="$root/sdk"
langs=(nodejs python go dotnet)

write="" generator_path=""
case "${1:-}" in
  "") ;;
  --write) write=1 ;;
  --generator-path) generator_path=1 ;;
  -h|--help) sed -n '2,26p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: bash scripts/sdk-check.sh [--write | --generator-path]" >&2; exit 2 ;;
esac

log() { echo "[sdk-check] $*" >&2; }
die() { log "error: $*"; exit 1; }

# Durations: EPOCHREALTIME (bash 5) in milliseconds.
now_ms() { local t="${EPOCHREALTIME/[.,]/}"; echo $(( t / 1000 )); }
script_start=$(now_ms)
step_start=0
step_begin() { step_start=$(now_ms); log "$1 ..."; }
step_end() {
  local ms=$(( $(now_ms) - step_start ))
  log "$1 ($(( ms / 1000 )).$(printf '%03d' $(( ms % 1000 )))s)"
}

# --- tools -----------------------------------------------------------------------------------------------------
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then PATH="/usr/local/go/bin:$PATH"
  else die "go is not installed (Go >= 1.25.11 is needed; on this project's machines it is /usr/local/go/bin/go)"
  fi
fi
export PATH GOTOOLCHAIN=local GOWORK=off GOFLAGS=-buildvcs=false
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$node_major" -lt 22 ]; then
  # shellcheck source=node-env.sh
  source "$root/scripts/node-env.sh" || die "no Node.js >= 22 (scripts/node-env.sh failed)"
fi
command -v python3 >/dev/null 2>&1 || die "python3 is not installed"
tsc="$root/node_modules/typescript/bin/tsc"
[ -f "$tsc" ] && [ -f "$root/node_modules/@pulumi/pulumi/package.json" ] \
  || die "node_modules is missing TypeScript or @pulumi/pulumi in $root: run npm ci first"

mkdir -p "$cache/tmp" "$cache/sdkgen"
tmp="$(mktemp -d "$cache/tmp/sdk-check.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# --- 1. the generators -----------------------------------------------------------------------------------------
step_begin "generators"
gen_src="$root/scripts/sdkgen"
hash="$(
  cd "$gen_src"
  { go version
    find . -type f \( -name '*.go' -o -name go.mod -o -name go.sum -o -name '*.png' \) -not -path './testdata/*' \
      | LC_ALL=C sort | xargs sha256sum
  } | sha256sum | cut -c1-16
)"
gen_dir="$cache/sdkgen/$hash"
sdkgen="$gen_dir/sdkgen" sdkgen_dotnet="$gen_dir/sdkgen-dotnet"
if [ ! -x "$sdkgen" ] || [ ! -x "$sdkgen_dotnet" ]; then
  mkdir -p "$gen_dir"
  exec {lock_fd}>"$cache/sdkgen/.build.lock"
  command -v flock >/dev/null 2>&1 && flock "$lock_fd"
  for pair in "$gen_src:$sdkgen" "$gen_src/dotnet:$sdkgen_dotnet"; do
    src="${pair%%:*}" bin="${pair#*:}"
    [ -x "$bin" ] && continue
    log "building $bin from $src (once per change of scripts/sdkgen; minutes when the Go caches are cold)"
    (cd "$src" && go build -mod=readonly -p 2 -trimpath -o "$bin.tmp.$$" .) \
      || { rm -f "$bin.tmp.$$"; die "building the generator in $src failed"; }
    mv -f "$bin.tmp.$$" "$bin"
  done
  exec {lock_fd}>&-
fi
step_end "generators: $("$sdkgen" -version | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}'); .NET: $("$sdkgen_dotnet" -version | head -n 1 | awk '{print $1, $2}') -> $gen_dir"
# --generator-path: only the generators, built or found, and the path of sdkgen on stdout (the e2e tests' stand-in
# language host runs it for GenerateProgram).
if [ -n "$generator_path" ]; then echo "$sdkgen"; exit 0; fi

# --- 2. generate -----------------------------------------------------------------------------------------------
step_begin "generate from ${schema#"$root/"}"
gen="$tmp/sdk"
(cd "$gen_src" && "$sdkgen" -schema "$schema" -out "$gen" -lang "$(IFS=,; echo "${langs[*]}")" \
  -dotnet-generator "$sdkgen_dotnet" 2>"$tmp/generate.log") \
  || { cat "$tmp/generate.log" >&2; die "generating the SDKs failed"; }
step_end "generate"

# --- 3. compare, or write --------------------------------------------------------------------------------------
stale=()
if [ -n "$write" ]; then
  step_begin "write sdk/"
  mkdir -p "$sdk"
  for l in "${langs[@]}"; do
    rm -rf "${sdk:?}/$l.new.$$"
    cp -R "$gen/$l" "$sdk/$l.new.$$"
    rm -rf "${sdk:?}/$l"
    mv "$sdk/$l.new.$$" "$sdk/$l"
  done
  step_end "write sdk/{$(IFS=,; echo "${langs[*]}")}"
else
  step_begin "compare with sdk/"
  # What building or installing an SDK in place writes, which each SDK's generated .gitignore lists (pip install
  # <checkout>/sdk/python builds in the source tree), is not part of the comparison.
  build_outputs=(-x build -x dist -x '*.egg-info' -x __pycache__ -x node_modules -x bin -x obj)
  for l in "${langs[@]}"; do
    if ! diff -r "${build_outputs[@]}" "$sdk/$l" "$gen/$l" >/dev/null 2>&1; then
      stale+=("$l")
      log "sdk/$l differs from what the schema generates:"
      (diff -rq "${build_outputs[@]}" "$sdk/$l" "$gen/$l" 2>&1 | sed -e "s|$gen/|generated:|g" -e "s|$root/||g" -e 's/^/    /' >&2) || true
      log "  (- committed, + generated; first 60 lines)"
      (cd "$tmp" && diff -ruN "${build_outputs[@]}" "$sdk/$l" "sdk/$l" 2>&1 | head -n 60 >&2) || true
    fi
  done
  if [ "${#stale[@]}" -eq 0 ]; then
    step_end "compare: sdk/ matches the schema"
  else
    step_end "compare: STALE: sdk/{$(IFS=,; echo "${stale[*]}")}"
  fi
fi

# Not fatal (the other engineer decides): the schema's version is the plugin version the SDKs ask the engine for.
schema_version="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("version",""))' "$schema")"
pkg_version="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$root/package.json")"
if [ "$schema_version" != "$pkg_version" ]; then
  log "warning: the schema's version ($schema_version) is not package.json's ($pkg_version); the SDKs request plugin webhooks v$schema_version"
fi

# --- 4. compile ------------------------------------------------------------------------------------------------
failed=()

step_begin "nodejs: tsc + load"
node_out="$tmp/nodejs-out"
cat >"$tmp/tsconfig.nodejs.json" <<EOF
{
  "compilerOptions": {
    "target": "ES2023",
    "lib": ["ES2023"],
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "types": ["node"],
    "typeRoots": ["$root/node_modules/@types"],
    "strict": true,
    "exactOptionalPropertyTypes": true,
    "noUncheckedIndexedAccess": true,
    "noImplicitReturns": true,
    "noFallthroughCasesInSwitch": true,
    "useUnknownInCatchVariables": true,
    "esModuleInterop": true,
    "skipLibCheck": true,
    "forceConsistentCasingInFileNames": true,
    "isolatedModules": false,
    "noImplicitOverride": false,
    "declaration": true,
    "rootDir": "$sdk/nodejs",
    "outDir": "$node_out"
  },
  "include": ["$sdk/nodejs/**/*.ts"]
}
EOF
if node "$tsc" -p "$tmp/tsconfig.nodejs.json" >&2; then
  # The generated utilities.ts reads the SDK version from ./package.json next to it at load time.
  cp "$sdk/nodejs/package.json" "$node_out/package.json"
  cat >"$tmp/load.js" <<'EOF'
const pulumi = require("@pulumi/pulumi");
const sdkDir = process.argv[2], want = process.argv[3];
const created = [];
pulumi.runtime.setMocks({
  newResource: (a) => { created.push(a.type); return { id: "7", state: { ...a.inputs, webhookId: 7 } }; },
  call: () => ({}),
}, "project", "stack", false);
const sdk = require(sdkDir);
const version = require(sdkDir + "/utilities").getVersion();
if (version !== want) throw new Error(`getVersion() is ${version}, the schema says ${want}`);
for (const k of ["Provider", "WebhookEndpoint", "config"]) if (!sdk[k]) throw new Error(`no export ${k}`);
const provider = new sdk.Provider("p", { baseUrl: "http://127.0.0.1:1" });
const endpoint = new sdk.WebhookEndpoint("e", { webhookUrl: "https://example.com/hook" }, { provider });
endpoint.webhookId.apply((id) => {
  if (id !== 7) throw new Error(`webhookId is ${id}`);
  setTimeout(() => {
    const want = ["pulumi:providers:webhooks", "webhooks:index:WebhookEndpoint"];
    if (JSON.stringify(created) !== JSON.stringify(want)) throw new Error(`registered ${created}`);
  }, 50);
});
EOF
  if NODE_PATH="$root/node_modules" node "$tmp/load.js" "$node_out" "$schema_version" >&2; then
    step_end "nodejs: ok (compiled $(find "$sdk/nodejs" -name '*.ts' | wc -l) files; loaded under mocks, v$schema_version)"
  else
    failed+=(nodejs); step_end "nodejs: FAILED to load"
  fi
else
  failed+=(nodejs); step_end "nodejs: FAILED to compile"
fi

step_begin "python: compileall + wheel"
# The wheel is built from a copy (setuptools builds in the source tree: build/ and an .egg-info), with pip's own
# build isolation (setuptools from the package index), and must come with no deprecation warning from pip.
cp -R "$sdk/python" "$tmp/python-src"
if PYTHONPYCACHEPREFIX="$tmp/pycache" python3 -m compileall -q "$sdk/python" >&2 \
   && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$sdk/python/pulumi_webhooks/pulumi-plugin.json" \
   && python3 -m pip wheel --no-deps --disable-pip-version-check --no-input -q -w "$tmp/wheel" "$tmp/python-src" \
        >"$tmp/wheel.log" 2>&1 \
   && ! grep -i -E "deprecat|legacy" "$tmp/wheel.log" >&2 \
   && [ -f "$tmp/wheel/pulumi_webhooks-$schema_version-py3-none-any.whl" ]; then
  step_end "python: ok (byte-compiled $(find "$sdk/python" -name '*.py' -not -path '*/build/*' | wc -l) files with $(python3 --version); pip wheel: pulumi_webhooks-$schema_version-py3-none-any.whl, no warning)"
else
  cat "$tmp/wheel.log" >&2 2>/dev/null || true
  failed+=(python); step_end "python: FAILED"
fi

step_begin "go: build + vet"
# -trimpath, as the CLI and the generators are built: Go reuses their compiled packages (a cold go vet
# without it compiled all of sdk/v3 again, 142 s of CPU; with it 22 s after the build).
# The module's `go` directive must be the lowest its dependencies allow: the highest `go` line among the modules it
# builds with (go mod tidy raises it that far and no further; docs/native-plugin.md names it).
go_directive() { (cd "$sdk/go" && go mod edit -json | python3 -c 'import json,sys; print(json.load(sys.stdin)["Go"])'); }
go_floor() { (cd "$sdk/go" && go list -mod=readonly -m -f '{{if not .Main}}{{.GoVersion}}{{end}}' all | grep . | sort -V | tail -n 1); }
if (cd "$sdk/go" && go build -mod=readonly -trimpath ./... && go vet -mod=readonly -trimpath ./...) >&2; then
  if [ "$(go_directive)" = "$(go_floor)" ]; then
    step_end "go: ok ($(go version | awk '{print $3}'); go directive $(go_directive), the highest among its dependencies)"
  else
    failed+=(go); step_end "go: FAILED: sdk/go/go.mod says go $(go_directive), its dependencies need go $(go_floor)"
  fi
else
  failed+=(go); step_end "go: FAILED"
fi

step_begin "dotnet: project files"
if python3 - "$sdk/dotnet" "$schema_version" >&2 <<'EOF'
import glob, json, sys, xml.etree.ElementTree as ET
d, want = sys.argv[1], sys.argv[2]
projs = glob.glob(d + "/*.csproj")
assert len(projs) == 1, f"expected one .csproj in {d}, found {projs}"
version = ET.parse(projs[0]).getroot().find("./PropertyGroup/Version").text
plugin = json.load(open(d + "/pulumi-plugin.json"))
txt = open(d + "/version.txt").read().strip()
assert version == want == plugin["version"] == txt, f"versions: csproj {version}, plugin {plugin['version']}, version.txt {txt}, schema {want}"
assert plugin["name"] == "webhooks" and plugin["resource"] is True, plugin
EOF
then
  if command -v dotnet >/dev/null 2>&1; then
    cp -R "$sdk/dotnet" "$tmp/dotnet"
    if (cd "$tmp/dotnet" && dotnet build -nologo -v q) >&2; then step_end "dotnet: ok (dotnet build)"
    else failed+=(dotnet); step_end "dotnet: FAILED (dotnet build)"
    fi
  else
    step_end "dotnet: ok (project files only: no .NET SDK here, C# not compiled)"
  fi
else
  failed+=(dotnet); step_end "dotnet: FAILED"
fi

# --- result ----------------------------------------------------------------------------------------------------
total_ms=$(( $(now_ms) - script_start ))
total="$(( total_ms / 1000 )).$(printf '%03d' $(( total_ms % 1000 )))s"
if [ "${#stale[@]}" -gt 0 ]; then
  log "FAILED in $total: sdk/{$(IFS=,; echo "${stale[*]}")} is not what src/native/schema.json generates."
  log "  If the schema change is intended, run \`bash scripts/sdk-check.sh --write\` and commit sdk/."
  [ "${#failed[@]}" -gt 0 ] && log "  Also failed to compile: ${failed[*]}"
  exit 1
fi
if [ "${#failed[@]}" -gt 0 ]; then
  log "FAILED in $total: ${failed[*]} (see above)"
  exit 1
fi
log "ok in $total"
