import { execFileSync } from "node:child_process";
import Module, { createRequire } from "node:module";
import { join } from "node:path";
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { LINKED_DIR, REPO } from "./global-setup";

export interface Registered {
  type: string;
  name: string;
  inputs: Record<string, unknown> & { __provider: string };
}

/**
 * `providerText` of the built package (dist/dynamic/shim.js): the text every WebhookEndpoint stores
 * is src/dynamic/stored-provider.js as the build minified it, with `packageDir`'s install path and
 * the program's stack (`<project>/<stack>`) in it.
 */
export function builtProviderText(packageDir: string, stack = "project/dev"): string {
  const shim = createRequire(__filename)(
    join(REPO, "dist", "dynamic", "shim.js"),
  ) as typeof import("../../src/dynamic/shim");
  return shim.providerText(packageDir, stack);
}

/** Declares resources under Pulumi's mocks in a plain node process and returns what was registered. */
export function registerUnderMocks(env: Record<string, string>): Registered[] {
  return declareUnderMocks(env).registered;
}

/**
 * Declares resources under Pulumi's mocks in a plain node process: what was registered, and the
 * files of zod and undici that declaring them loaded.
 */
export function declareUnderMocks(env: Record<string, string>): {
  registered: Registered[];
  loaded: string[];
  /** By resource name, the Output properties the SDK made on the resource object, sorted. */
  properties: Record<string, string[]>;
} {
  const out = execFileSync(process.execPath, [join(REPO, "test/dynamic/fixtures/serialize-provider.cjs")], {
    cwd: LINKED_DIR,
    env: { ...process.env, ...env, NODE_PATH: join(LINKED_DIR, "node_modules") },
    encoding: "utf8",
  });
  return JSON.parse(out) as {
    registered: Registered[];
    loaded: string[];
    properties: Record<string, string[]>;
  };
}

/** Loads a serialized provider the way the dynamic-provider host does: from text, in LINKED_DIR. */
export function loadProviderText(text: string): dynamic.ResourceProvider {
  const filename = join(LINKED_DIR, "serialized-provider.js");
  const mod = new Module(filename) as Module & {
    _compile(code: string, filename: string): void;
    paths: string[];
  };
  mod.filename = filename;
  mod.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(LINKED_DIR);
  mod._compile(text, filename);
  return (mod.exports as { handler: () => dynamic.ResourceProvider }).handler();
}
