// @ts-check
/**
 * The source of the text Pulumi stores in every WebhookEndpoint's `__provider` (twice per
 * resource: inputs and outputs) and sends in every engine call. The dynamic-provider host evaluates
 * that text as a CommonJS module with an empty file name and calls its `handler()` for the provider
 * object. scripts/build.mjs minifies this file into dist/dynamic/stored-provider.min.js, and
 * `providerText` (shim.ts) writes into it the two values it holds: where the program loaded the
 * package from, and the program's stack. Written by hand
 * rather than produced by Pulumi's closure serializer: about 1.2 KB instead of 3.6 KB, a plain
 * string rather than an Output per resource, and no function parsed by the serializer in every
 * program run.
 *
 * Plain CommonJS, type-checked from its JSDoc, so that what is minified is exactly what is read and
 * tested here (a compiler's module helpers would double the text). It must stand alone: Node's
 * built-ins only, nothing else of this package (none of it is in the text).
 *
 * Each method loads the installed package when it first runs, so the text holds no token and no
 * package code, and a package upgrade reaches old resources on refresh and destroy; what each call
 * needs besides (the stack, handed in the program's inputs) is the package's to add, through its
 * provider's `forStack`, so that the text stays short: it travels in every engine call, and the
 * engine logs every property of every call. Where the
 * package is looked for, first usable copy wins (Node's global folders, NODE_PATH and
 * ~/.node_modules, are never consulted):
 * 1. in the provider host's working directory (the program's directory), then in each directory
 *    above it, nearest first: its `node_modules/pulumi-webhook-endpoints` (npm, Yarn with
 *    node_modules, pnpm as a direct dependency), then pnpm's hoisted store under it,
 *    `node_modules/.pnpm/node_modules/pulumi-webhook-endpoints` (pnpm when the package is a
 *    dependency of a wrapper library);
 * 2. the directory the program itself loaded the package from (the same command, or the same
 *    checkout later), which the text embeds.
 * A copy whose package.json does not export `./provider` or is not a file, whose `./provider`
 * cannot be resolved inside it (not built, a foreign package.json, one without an exports map, for
 * which Node would go on to its global folders, a target that leads out of it) is skipped and named
 * in the error if nothing usable is found; the error
 * names the package, where the program runs and the commands that install it, without a stack.
 * What is found is kept for the rest of the provider host process (one per command), so the search
 * runs once, not on every engine call. An error while loading the copy found is not masked: it is
 * the package's own.
 */
const { existsSync, readFileSync, realpathSync, statSync } = require("fs");
// eslint-disable-next-line @typescript-eslint/unbound-method -- Node's path functions do not use `this`
const { dirname, join, sep } = require("path");

const PACKAGE = "pulumi-webhook-endpoints";

/**
 * Where the program loaded the package from (its dist/dynamic/provider.js): `providerText` writes
 * the path over this placeholder in the stored text.
 */
const LOADED_FROM = "(where the program loaded the package from)";

/**
 * The stack (`<project>/<stack>`) of the program that wrote the text: `providerText` writes it over
 * this placeholder. The provider is asked for its face for this stack (`forStack`), which hands the
 * stack to the provider in the program's inputs of each call that carries them: the
 * dynamic-provider host does not tell a provider which stack it runs for, and an endpoint's
 * provenance records it.
 */
const STACK = "(the stack the program runs as)";

/** The package's entry that exports the provider, and the key the process keeps the provider under. */
const ENTRY = `${PACKAGE}/provider`;

/** Where the provider found is kept: on the process, shared by every resource's text (0.2.0's too). */
const PROCESS_WIDE = /** @type {Record<symbol, Provider>} */ (/** @type {unknown} */ (globalThis));

/** @typedef {"configure" | "check" | "diff" | "create" | "read" | "update" | "delete"} Method */
/**
 * The package's provider: its methods, and (from 0.3.0) `forStack`, the same provider for one stack's
 * program. A package without `forStack` (0.2.0, after a downgrade) is called as it is.
 * @typedef {Record<Method, (...args: unknown[]) => unknown> & { forStack?: (stack: string) => Provider }} Provider
 */

/** The provider's methods the host calls, as one string: the text is stored in every resource. */
const METHODS = "configure check diff create read update delete";

/**
 * The file of the package's `./provider` entry in the first usable copy, else `loadedFrom` if it
 * exists; else an error that names the package, `workingDir`, the copies found but unusable and how
 * to install it, with no stack (a stack would point into this text, which tells a user nothing).
 * @param {string} workingDir where the program runs: the copies are looked for there and above
 * @param {string} loadedFrom the `./provider` file of the copy the program loaded
 * @returns {string}
 */
function locateProvider(workingDir, loadedFrom) {
  /** @type {string[]} */
  const copies = [];
  // From the working directory up to the root, nearest first: each directory's node_modules, then
  // the pnpm store under it (`node_modules/.pnpm/node_modules`), so that no directory above the
  // project comes before the project's own store.
  for (
    let dir = workingDir;
    copies.push(join(dir, "node_modules", PACKAGE), join(dir, "node_modules/.pnpm/node_modules", PACKAGE)),
      dir !== (dir = dirname(dir));
  );
  const unusable = [];
  for (const copy of copies) {
    const manifest = join(copy, "package.json");
    let why = "no ./provider in it";
    try {
      // Nothing there, or no file (read, a FIFO would hold the provider host forever): no copy.
      if (!statSync(manifest, { throwIfNoEntry: false })?.isFile()) continue;
      if (
        // Node's resolution from a directory goes on to the global folders unless the package it
        // finds there has an exports map: a copy counts only if its package.json exports
        // ./provider, and then only if what Node resolves is inside that copy.
        // Typed by the JSDoc cast, which tsc reads and typescript-eslint cannot see.
        // prettier-ignore
        // eslint-disable-next-line @typescript-eslint/no-unsafe-member-access
        /** @type {{ exports?: Record<string, unknown> } | null} */ (JSON.parse(readFileSync(manifest, "utf8")))?.exports?.["./provider"]
      ) {
        // From inside the copy, Node resolves the package's own name by its exports map (a copy
        // under another name is looked for elsewhere, and refused below).
        const file = require("module").createRequire(manifest).resolve(ENTRY);
        if (realpathSync(file).startsWith(realpathSync(copy) + sep)) return file;
        why = `./provider outside it: ${file}`;
      }
    } catch (error) {
      // Node's own errors name their code (MODULE_NOT_FOUND, EACCES, ELOOP); a package.json that
      // does not parse, its message.
      why = String(/** @type {{ code?: unknown } | null} */ (error)?.code || error);
    }
    unusable.push(`${copy} (${why})`);
  }
  if (existsSync(loadedFrom)) return loadedFrom;
  const error = new Error(
    `${PACKAGE} is not installed where the program runs (${workingDir})${unusable.length ? `; copies found but unusable: ${unusable.join(", ")}` : ""}: install it there (npm install ${PACKAGE}, pnpm add ${PACKAGE} or yarn add ${PACKAGE}) and run the command again`,
  );
  error.stack = error.message;
  throw error;
}

/**
 * What the dynamic-provider host calls on the evaluated text for the provider object: each method
 * finds and loads the package's provider when first called (never when the text is evaluated) and
 * forwards the call to its face for this text's stack.
 * @returns {Record<Method, (...args: unknown[]) => unknown>}
 */
function handler() {
  const forwarding = /** @type {Record<Method, (...args: unknown[]) => unknown>} */ ({});
  for (const method of /** @type {Method[]} */ (METHODS.split(" "))) {
    forwarding[method] = (...args) => {
      // Typed by the JSDoc cast, which tsc reads and typescript-eslint cannot see.
      // prettier-ignore
      // eslint-disable-next-line @typescript-eslint/no-unsafe-member-access
      const found = (PROCESS_WIDE[Symbol.for(ENTRY)] ||= /** @type {{ provider: Provider }} */ (require(locateProvider(process.cwd(), LOADED_FROM))).provider);
      return (found.forStack?.(STACK) ?? found)[method](...args);
    };
  }
  return forwarding;
}

// The host needs `handler` alone: the build stores this line as `module.exports = { handler };`
// (the rest is for the build, shim.ts and the tests).
module.exports = { LOADED_FROM, STACK, locateProvider, handler };
