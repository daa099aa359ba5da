#!/usr/bin/env bash
# Makes node_modules/pulumi-webhook-endpoints a symlink to this checkout, so that a Pulumi program
# inside the repository (the demo's Pulumi.yaml, examples/*) resolves the package by name to this
# checkout's dist/, exactly as an installed package would be resolved.
#
# Why a symlink and not Node's package self-reference: the dynamic-provider host loads the
# serialized provider from a string, and that module's `require("pulumi-webhook-endpoints/provider")`
# is resolved from the program's working directory through node_modules only.
#
# Idempotent; `npm ci` removes the link (it rebuilds node_modules), so run this after it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
link="$root/node_modules/pulumi-webhook-endpoints"
target=".."   # relative: node_modules/.. is the checkout, wherever it is moved

if [ ! -d "$root/node_modules" ]; then
  echo "link-self: $root/node_modules does not exist: run npm ci first" >&2
  exit 1
fi
if [ -L "$link" ] && [ "$(readlink "$link")" = "$target" ]; then
  exit 0
fi
if [ -e "$link" ] && [ ! -L "$link" ]; then
  # A copy installed from a registry or tarball would shadow the checkout: replace it.
  echo "link-self: replacing the installed copy at node_modules/pulumi-webhook-endpoints with a link to this checkout" >&2
  rm -rf "$link"
fi
ln -sfn "$target" "$link.tmp.$$"
mv -Tf "$link.tmp.$$" "$link"
