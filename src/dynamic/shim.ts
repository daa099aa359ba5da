import { resolve } from "node:path";
import type * as dynamic from "@pulumi/pulumi/dynamic";

/**
 * The provider object Pulumi serializes into every resource's `__provider`. Each method loads the
 * installed package when it runs and captures nothing but `loadProvider` and the directory the
 * package was loaded from by the program, so the stored text stays small, holds no token, and a
 * package upgrade reaches old resources on refresh and destroy.
 *
 * Where the package is looked for, first hit wins:
 * 1. `require("pulumi-webhook-endpoints/provider")` from the provider host's working directory
 *    (the program's directory): npm, Yarn with node_modules, pnpm as a direct dependency;
 * 2. pnpm's hoisted store, `node_modules/.pnpm/node_modules`, in that directory or above it: pnpm
 *    when the package is a dependency of a wrapper library;
 * 3. the directory the program itself loaded the package from (the same command, or the same
 *    checkout later).
 * When none has it, the error names the package and the command that installs it.
 *
 * Method bodies must not reference anything outside themselves but `loadProvider`: the closure
 * serializer would inline it into state.
 */
const PROGRAM_PACKAGE_DIR = resolve(__dirname, "..", "..");

/* eslint-disable @typescript-eslint/no-require-imports */
function loadProvider(): Required<dynamic.ResourceProvider> {
  const request = "pulumi-webhook-endpoints/provider";
  const fs = require("fs") as typeof import("fs");
  const path = require("path") as typeof import("path");
  const from = [process.cwd()];
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    from.push(path.join(dir, "node_modules", ".pnpm"));
    if (path.dirname(dir) === dir) break;
  }
  for (const base of from) {
    try {
      return (require(require.resolve(request, { paths: [base] })) as { provider: Required<dynamic.ResourceProvider> }).provider;
    } catch (error) {
      const failure = error as { code?: unknown; message?: unknown } | null;
      if (failure?.code !== "MODULE_NOT_FOUND" || !String(failure.message).includes(request)) throw error;
    }
  }
  const fallback = path.join(PROGRAM_PACKAGE_DIR, "dist", "dynamic", "provider.js");
  if (fs.existsSync(fallback)) return (require(fallback) as { provider: Required<dynamic.ResourceProvider> }).provider;
  throw new Error(
    `the package pulumi-webhook-endpoints, which runs this stack's WebhookEndpoint resources, is not installed where the program runs (${process.cwd()}). Install it in the project and run the command again: npm install pulumi-webhook-endpoints (or pnpm add pulumi-webhook-endpoints, or yarn add pulumi-webhook-endpoints)`,
  );
}

export const providerShim: dynamic.ResourceProvider = {
  configure: (req) => loadProvider().configure(req),
  check: (olds, news) => loadProvider().check(olds, news),
  diff: (id, olds, news) => loadProvider().diff(id, olds, news),
  create: (inputs) => loadProvider().create(inputs),
  read: (id, props) => loadProvider().read(id, props),
  update: (id, olds, news) => loadProvider().update(id, olds, news),
  delete: (id, props) => loadProvider().delete(id, props),
};
