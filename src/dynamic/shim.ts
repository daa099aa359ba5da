import { resolve } from "node:path";

/**
 * The text Pulumi stores in every WebhookEndpoint's `__provider` (twice per resource: inputs and
 * outputs) and sends in every engine call. The dynamic-provider host evaluates it as a CommonJS
 * module with an empty file name and calls its `handler()` for the provider object, so it must be
 * self-contained JavaScript. Written by hand rather than produced by Pulumi's closure serializer:
 * 1.2 KB instead of 3.6 KB, a plain string rather than an Output per resource, and no function
 * parsed by the serializer in every program run.
 *
 * Each method loads the installed package when it first runs, so the text holds no token and no
 * package code, and a package upgrade reaches old resources on refresh and destroy. Where the
 * package is looked for, first usable copy wins (Node's global folders, NODE_PATH and
 * ~/.node_modules, are never consulted):
 * 1. `node_modules/pulumi-webhook-endpoints` in the provider host's working directory (the
 *    program's directory) and the directories above it: npm, Yarn with node_modules, pnpm as a
 *    direct dependency;
 * 2. pnpm's hoisted store, `node_modules/.pnpm/node_modules`, in that directory or above it: pnpm
 *    when the package is a dependency of a wrapper library;
 * 3. the directory the program itself loaded the package from (the same command, or the same
 *    checkout later), the one value the text embeds.
 * A copy whose `./provider` entry cannot be resolved (not built, a foreign package.json) is
 * skipped and named in the error if nothing usable is found; the error names the package, where
 * the program runs and the commands that install it, without a stack. What is found is kept for
 * the rest of the provider host process (one per command), so the search runs once, not on every
 * engine call. An error while loading the copy found is not masked: it is the package's own.
 */
export function providerText(packageDir: string): string {
  const fallback = JSON.stringify(resolve(packageDir, "dist", "dynamic", "provider.js"));
  // Indentation is for reading here; the stored text goes without it.
  return `"use strict";
exports.handler = () => {
  const name = "pulumi-webhook-endpoints", key = Symbol.for(name + "/provider");
  const load = () => {
    if (globalThis[key]) return globalThis[key];
    const path = require("path"), fs = require("fs"), cwd = process.cwd(), copies = [], stores = [], unusable = [];
    for (let dir = cwd; ; dir = path.dirname(dir)) {
      copies.push(path.join(dir, "node_modules", name));
      stores.push(path.join(dir, "node_modules", ".pnpm", "node_modules", name));
      if (path.dirname(dir) === dir) break;
    }
    let file = ${fallback};
    for (const copy of copies.concat(stores)) {
      if (!fs.existsSync(path.join(copy, "package.json"))) continue;
      try {
        file = require.resolve(name + "/provider", { paths: [path.dirname(path.dirname(copy))] });
        break;
      } catch (error) {
        unusable.push(copy + " (" + ((error && error.code) || error) + ")");
      }
    }
    if (!fs.existsSync(file)) {
      const error = new Error("the package " + name + ", which runs this stack's WebhookEndpoint resources, is not installed where the program runs (" + cwd + ")" + (unusable.length ? "; copies found but unusable: " + unusable.join(", ") : "") + ". Install it in the project and run the command again: npm install " + name + " (or pnpm add " + name + ", or yarn add " + name + ")");
      error.stack = error.message;
      throw error;
    }
    return (globalThis[key] = require(file).provider);
  };
  const shim = {};
  for (const method of ["configure", "check", "diff", "create", "read", "update", "delete"]) shim[method] = (...args) => load()[method](...args);
  return shim;
};
`.replace(/^ +/gm, "");
}

/** The text for the package this module belongs to (dist/dynamic/shim.js → the package's root). */
export const PROVIDER_TEXT = providerText(resolve(__dirname, "..", ".."));
