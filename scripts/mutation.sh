#!/usr/bin/env bash
# npm run mutation: Stryker over the core paths (stryker.config.mjs), against the in-process tests
# (vitest.mutation.config.mts). Not part of CI: about an hour on two idle cores. Report in
# reports/mutation/ (open mutation.html).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/node-env.sh
pwe_ensure_node_modules
exec npx stryker run stryker.config.mjs "$@"
