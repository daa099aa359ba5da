#!/usr/bin/env bash
# What the plugin's release archives need beyond node_modules (docs/native-plugin.md), installed when missing:
#
#   rcodesign  signs the darwin executables ad hoc: crate apple-codesign 0.29.0, `cargo install`ed into
#              ~/.cache/pulumi-webhook-endpoints/rcodesign-0.29.0 (PWE_CACHE_DIR or XDG_CACHE_HOME move it).
#              Needs cargo (Rust 1.81 or newer); 35 minutes to compile on this project's busy 2-core machine.
#   qemu       runs the linux-arm64 executable here: Debian's qemu-user-static and the arm64 C and C++
#              runtime libraries of its cross toolchain (/usr/aarch64-linux-gnu), installed with apt-get.
#
#   bash scripts/ensure-release-tools.sh [rcodesign] [qemu]     (no argument: both)
#
# npm run release:archives needs rcodesign for the darwin platforms; npm run test:deep needs both (its
# five-platform test runs the linux-arm64 executable under qemu). Each is checked first and reused.
set -euo pipefail

RCODESIGN_VERSION=0.29.0
cache="${PWE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-webhook-endpoints}"
rcodesign_root="$cache/rcodesign-$RCODESIGN_VERSION"
QEMU_PACKAGES=(qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross libgcc-s1-arm64-cross libatomic1-arm64-cross)

ensure_rcodesign() {
  if [ -x "$rcodesign_root/bin/rcodesign" ]; then
    echo "[release-tools] rcodesign $RCODESIGN_VERSION: $rcodesign_root/bin/rcodesign" >&2
    return 0
  fi
  if ! command -v cargo >/dev/null 2>&1; then
    echo "[release-tools] rcodesign is missing and there is no cargo to build it: install Rust 1.81 or newer (rustup), then run this again; or put rcodesign on PATH" >&2
    return 1
  fi
  echo "[release-tools] cargo install apple-codesign@$RCODESIGN_VERSION (no notarization features): about 35 minutes on 2 busy cores" >&2
  local staging="$rcodesign_root.staging-$$"
  rm -rf "$staging"
  # Into a staging root, then renamed: a run stopped half way leaves nothing that looks installed.
  cargo install "apple-codesign@$RCODESIGN_VERSION" --locked --no-default-features --root "$staging" >&2
  mv "$staging" "$rcodesign_root" 2>/dev/null || rm -rf "$staging"  # another run installed it meanwhile
  "$rcodesign_root/bin/rcodesign" --version >&2
}

ensure_qemu() {
  if command -v qemu-aarch64-static >/dev/null 2>&1 && [ -e /usr/aarch64-linux-gnu/lib/libatomic.so.1 ] \
    && [ -e /usr/aarch64-linux-gnu/lib/libstdc++.so.6 ]; then
    echo "[release-tools] qemu-aarch64-static and the arm64 libraries: present" >&2
    return 0
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "[release-tools] running linux-arm64 executables needs ${QEMU_PACKAGES[*]} (Debian's names): install them as root" >&2
    return 1
  fi
  echo "[release-tools] apt-get install ${QEMU_PACKAGES[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${QEMU_PACKAGES[@]}" >&2
}

tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(rcodesign qemu)
for tool in "${tools[@]}"; do
  case "$tool" in
    rcodesign) ensure_rcodesign ;;
    qemu) ensure_qemu ;;
    *) echo "usage: bash scripts/ensure-release-tools.sh [rcodesign] [qemu]" >&2; exit 2 ;;
  esac
done
