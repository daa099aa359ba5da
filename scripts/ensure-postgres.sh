#!/usr/bin/env bash
# The pipeline end-to-end test runs a real PostgreSQL as the Pulumi state backend. Debian's
# PostgreSQL server is usually installed on this project's machines; install it when it is not.
set -euo pipefail
if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then exit 0; fi
echo "[postgres] server binaries missing: installing Debian's postgresql package" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
# The packaged cluster is not needed: tests start their own on a free port.
$SUDO systemctl disable --now postgresql >/dev/null 2>&1 || true
