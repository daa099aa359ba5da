# Sourced (like scripts/engine.sh): puts the Pulumi YAML language host, pulumi-language-yaml, on PATH, so that
# the Pulumi CLI can run YAML programs (`runtime: yaml`), e.g. ones that use the native `webhooks` provider.
#
#   source scripts/engine.sh && source scripts/engine-yaml.sh      # engine.sh first is optional but better (below)
#
# What it resolves, in order (first hit wins):
#   1. a `pulumi-language-yaml` already on PATH (an official Pulumi install ships one next to `pulumi`)
#   2. a cached build: $cache/engine/yaml-<version>/bin/pulumi-language-yaml
#   3. a build from Go modules of github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml at the version below,
#      in a module of our own under $cache/engine/yaml-<version>/src (needs `go`; once). After scripts/engine.sh
#      it is built against the engine's github.com/pulumi/pulumi/pkg/v3 and sdk/v3 ($PWE_PULUMI_VERSION, v3.259.0
#      by default; pulumi-yaml v1.38.3 itself pins v3.257.0) with the same flags and replace directives as the
#      CLI, so Go reuses the CLI build's compiled packages: about 60 s of CPU on a cold machine instead of a
#      second full compile of pkg/v3 (measured: 62 s of CPU after the CLI's 434 s). Alone, pulumi-yaml's pins.
# The CLI prefers a language host found next to the `pulumi` binary ("bundled") and warns "using
# pulumi-language-yaml from $PATH" about any other. So when $PWE_PULUMI (exported by scripts/engine.sh) is a
# pulumi built into our cache ($cache/engine/<v>/bin) and has no YAML host next to it, a link to ours is put
# there (that directory is already on PATH); otherwise our bin directory is prepended to PATH (once).
# $cache is ${PWE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-webhook-endpoints}, as in engine.sh.
#
# Exports: PATH, PWE_YAML_HOST (path of the pulumi-language-yaml in use), PWE_YAML_VERSION (the version we build;
# an already installed host may be another one).
# Prints nothing when everything is cached; returns non-zero with a message when the host cannot be had.
# Set PWE_ENGINE_YAML_VERSION=1.x.y to build another version, PWE_ENGINE_VERBOSE=1 to print what was resolved,
# PWE_ENGINE_NO_BUILD=1 to never build.

_pwe_yaml_log() { echo "[engine-yaml] $*" >&2; }

# v1.38.3 is known to build here, against pkg/sdk v3.257.0 (its own pins) and v3.259.0 (the engine's).
_pwe_yaml_default_version=1.38.3

_pwe_yaml_go() {
  if [ -n "${PWE_ENGINE_NO_BUILD:-}" ]; then return 1
  elif command -v go >/dev/null 2>&1; then command -v go
  elif [ -x /usr/local/go/bin/go ]; then echo /usr/local/go/bin/go
  else return 1
  fi
}

_pwe_yaml_install_hint() {
  local why="cannot find or build"
  [ -n "${PWE_ENGINE_NO_BUILD:-}" ] && why="PWE_ENGINE_NO_BUILD is set and there is no cached"
  cat >&2 <<EOF
[engine-yaml] $why pulumi-language-yaml v$1.
[engine-yaml] Either install the Pulumi CLI (it ships pulumi-language-yaml next to pulumi) and put it on PATH, e.g.
[engine-yaml]   curl -fsSL https://get.pulumi.com | sh && export PATH="\$HOME/.pulumi/bin:\$PATH"
[engine-yaml] or install Go >= 1.25.11 (on this project's machines it is /usr/local/go/bin/go) so that
[engine-yaml] scripts/engine-yaml.sh can build it from the Go module proxy into
[engine-yaml]   $2
EOF
}

# Builds pulumi-language-yaml v$1 into $2/bin (to a temporary name, then renamed).
_pwe_yaml_build() {
  local ver="$1" dir="$2" go log src tmp start elapsed yamlmod godirective replaces pkgver="${PWE_PULUMI_VERSION:-}" pkgmod
  go="$(_pwe_yaml_go)" || return 1
  log="$dir/build.log" src="$dir/src" tmp="$dir/bin/.pulumi-language-yaml.tmp.$$"
  mkdir -p "$dir/bin" "$src" || return 1
  start=$(date +%s)
  _pwe_yaml_log "building pulumi-language-yaml v$ver from Go modules (once; a few minutes on 2 cores; log: $log)"
  (
    cd "$src" || exit 1
    # GOFLAGS is replaced (a user's -mod=vendor would break this build); GOTOOLCHAIN=local: never download a Go.
    export GOFLAGS="-mod=mod -buildvcs=false" GOTOOLCHAIN="${GOTOOLCHAIN:-local}" GOWORK=off
    : >"$log"
    rm -f go.mod go.sum tools.go
    # (`go install ...@v$ver` would be simpler, but it asks the proxy for the module's version list, which the
    # proxy here refuses.) A module of our own that requires pulumi-yaml gets pulumi-yaml's own dependency
    # versions (its go.mod lists them all: pkg/v3 and sdk/v3 v3.257.0 for v1.38.3); it repeats pulumi-yaml's
    # `go` directive and its non-local replace directives (Go ignores a dependency's replaces; v1.38.3 has none).
    yamlmod="$("$go" mod download -json "github.com/pulumi/pulumi-yaml@v$ver" 2>>"$log" | sed -n 's/^[[:space:]]*"GoMod":[[:space:]]*"\(.*\)",*$/\1/p')"
    [ -f "$yamlmod" ] || { echo "cannot download github.com/pulumi/pulumi-yaml@v$ver" >>"$log"; exit 1; }
    godirective="$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$yamlmod" | head -n 1)"
    replaces="$(grep -E '^replace .*=> *[^. /][^ ]* +v[^ ]+' "$yamlmod" || true)"
    # The engine's pkg/v3 and sdk/v3, and pkg/v3's replace directives (as scripts/engine.sh repeats them).
    if [ -n "$pkgver" ]; then
      pkgmod="$("$go" mod download -json "github.com/pulumi/pulumi/pkg/v3@v$pkgver" 2>>"$log" | sed -n 's/^[[:space:]]*"GoMod":[[:space:]]*"\(.*\)",*$/\1/p')"
      if [ -f "$pkgmod" ]; then
        replaces="$(printf '%s\n' "$replaces"; grep -E '^replace .*=> *[^. /][^ ]* +v[^ ]+' "$pkgmod" || true)"
      else
        echo "(github.com/pulumi/pulumi/pkg/v3@v$pkgver cannot be downloaded: pulumi-yaml's own pins are used)" >>"$log"
        pkgver=""
      fi
    fi
    {
      echo "// Generated by scripts/engine-yaml.sh: builds pulumi-language-yaml v$ver. Do not edit."
      echo "module pwe/engine-yaml"
      echo
      echo "go ${godirective:-1.25}"
      echo
      echo "require ("
      echo "	github.com/pulumi/pulumi-yaml v$ver"
      if [ -n "$pkgver" ]; then
        echo "	github.com/pulumi/pulumi/pkg/v3 v$pkgver"
        echo "	github.com/pulumi/pulumi/sdk/v3 v$pkgver"
      fi
      echo ")"
      echo
      printf '%s\n' "$replaces" | sort -u
    } >go.mod
    printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"\n' >tools.go
    "$go" build -p 2 -trimpath -ldflags "-X github.com/pulumi/pulumi-yaml/pkg/version.Version=v$ver" \
      -o "$tmp" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml >>"$log" 2>&1 || exit 1
    mv -f "$tmp" "$dir/bin/pulumi-language-yaml"
  ) || {
    rm -f "$tmp"
    _pwe_yaml_log "building pulumi-language-yaml failed; last lines of $log:"
    tail -n 15 "$log" >&2
    return 1
  }
  elapsed=$(( $(date +%s) - start ))
  _pwe_yaml_log "built pulumi-language-yaml v$ver in ${elapsed}s (cold build) -> $dir/bin/pulumi-language-yaml"
}

_pwe_yaml_main() {
  local cache ver dir host="" lock_fd="" pulumi_dir="" how
  cache="${PWE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-webhook-endpoints}"
  ver="${PWE_ENGINE_YAML_VERSION:-$_pwe_yaml_default_version}"
  ver="${ver#v}"
  if ! [[ "$ver" =~ ^1\.[0-9]+\.[0-9]+$ ]]; then
    _pwe_yaml_log "PWE_ENGINE_YAML_VERSION must look like 1.38.3 (got '$ver')"
    return 1
  fi

  # 1. one already on PATH (an official install, a previous source of this script, or our link)
  if host="$(command -v pulumi-language-yaml 2>/dev/null)" && [ -n "$host" ]; then
    how="on PATH"
  else
    dir="$cache/engine/yaml-$ver"
    # 2./3. our cached build, built once if missing (one build at a time, even across concurrent shells)
    if [ ! -x "$dir/bin/pulumi-language-yaml" ]; then
      if ! _pwe_yaml_go >/dev/null; then
        _pwe_yaml_install_hint "$ver" "$dir/bin"
        return 1
      fi
      mkdir -p "$dir/bin" || return 1
      dir="$(cd "$dir" && pwd -P)" || return 1
      if command -v flock >/dev/null 2>&1; then
        exec {lock_fd}>"$dir/.build.lock"
        flock "$lock_fd"
      fi
      if [ ! -x "$dir/bin/pulumi-language-yaml" ]; then
        _pwe_yaml_build "$ver" "$dir" || {
          [ -n "$lock_fd" ] && exec {lock_fd}>&-
          _pwe_yaml_install_hint "$ver" "$dir/bin"
          return 1
        }
      fi
      [ -n "$lock_fd" ] && exec {lock_fd}>&-
    fi
    dir="$(cd "$dir" && pwd -P)" || return 1
    host="$dir/bin/pulumi-language-yaml"
    how="cached build"

    # Next to a pulumi of our engine cache (bundled: no warning), else via PATH.
    if [ -n "${PWE_PULUMI:-}" ] && [ -x "$PWE_PULUMI" ]; then
      pulumi_dir="$(cd "$(dirname "$(readlink -f "$PWE_PULUMI")")" && pwd -P)" || pulumi_dir=""
    fi
    if [ -n "$pulumi_dir" ] && [ "${pulumi_dir#"$(cd "$cache/engine" && pwd -P)"/}" != "$pulumi_dir" ] \
       && [ ! -e "$pulumi_dir/pulumi-language-yaml" ] && [ -w "$pulumi_dir" ] \
       && case ":$PATH:" in *":$pulumi_dir:"*) true ;; *) false ;; esac; then
      ln -sfn "$host" "$pulumi_dir/.pulumi-language-yaml.tmp.$$" \
        && mv -Tf "$pulumi_dir/.pulumi-language-yaml.tmp.$$" "$pulumi_dir/pulumi-language-yaml" || return 1
      host="$pulumi_dir/pulumi-language-yaml"
      how="cached build, linked next to $PWE_PULUMI"
    else
      case ":$PATH:" in
        *":$dir/bin:"*) ;;
        *) PATH="$dir/bin:$PATH"; export PATH ;;
      esac
    fi
  fi

  export PWE_YAML_HOST="$host" PWE_YAML_VERSION="$ver"
  if [ -n "${PWE_ENGINE_VERBOSE:-}" ]; then
    _pwe_yaml_log "pulumi-language-yaml: $host ($how)"
  fi
}

_pwe_yaml_main
_pwe_yaml_rc=$?
unset _pwe_yaml_default_version
unset -f _pwe_yaml_log _pwe_yaml_go _pwe_yaml_install_hint _pwe_yaml_build _pwe_yaml_main
eval "unset _pwe_yaml_rc; return $_pwe_yaml_rc 2>/dev/null || exit $_pwe_yaml_rc"
