// The dependencies between src/'s folders that docs/development.md ("Where things live") states
// are kept by a lint rule (SRC_LAYERS in eslint.layers.mjs), which `npm run check` runs on every
// file. This proves the rule reports what it must and lets through what the architecture allows:
// imports are linted as if written in a file of each folder.
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { execFileSync } from "node:child_process";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import { SRC_LAYERS } from "../../eslint.layers.mjs";

const REPO = join(__dirname, "..", "..");
const eslint = new ESLint({
  cwd: REPO,
  overrideConfigFile: true,
  overrideConfig: [{ files: ["**/*.ts"], languageOptions: { parser: tseslint.parser } }, ...SRC_LAYERS],
});

/** Whether the rule refuses `statement` written in `file` (a path under src/ that need not exist). */
async function refused(file: string, statement: string): Promise<boolean> {
  const [result] = await eslint.lintText(`${statement}\n`, { filePath: join(REPO, file) });
  const messages = result!.messages;
  const other = messages.filter((message) => message.ruleId !== "no-restricted-imports");
  expect(other, `${file}: ${statement}`).toEqual([]);
  return messages.length > 0;
}

describe("src/'s folders depend on each other only as docs/development.md says (lint: no-restricted-imports)", () => {
  it.each([
    ["src/cli/new.ts", 'import { nameProblems } from "../client/rules";'],
    ["src/core/new.ts", 'import type { WebhookEndpointRecord } from "../client/types";'],
    ["src/native/new.ts", 'import { showable } from "../text/redact";'],
    ["src/client/new.ts", 'import { redact } from "../text/redact";'],
    ["src/index.ts", 'export { sameName } from "./client/rules";'],
    ["src/dynamic/new.ts", 'export * from "../client/client";'],
  ])("%s may not reach into the client or src/text: %s", async (file, statement) => {
    expect(await refused(file, statement)).toBe(true);
  });

  it.each([
    ["src/emulator/new.ts", 'import { WebhooksClient } from "../client";'],
    ["src/emulator/new.ts", 'import { redact } from "../text";'],
    ["src/emulator/new.ts", 'import { ProviderCore } from "../core";'],
    ["src/text/new.ts", 'import { LIST_PATH } from "../api/contract";'],
    ["src/api/new.ts", 'import { redact } from "../text";'],
    ["src/client/new.ts", 'import { ProviderCore } from "../core";'],
    ["src/client/new.ts", 'import * as pulumi from "@pulumi/pulumi";'],
    ["src/core/new.ts", 'import { grpc } from "../native/grpc";'],
    ["src/core/new.ts", 'import { main } from "../cli/main";'],
    ["src/dynamic/new.ts", 'import { NativeProvider } from "../native/server";'],
    ["src/dynamic/new.ts", 'import { main } from "../cli/main";'],
    ["src/dynamic/new.ts", 'import { startEmulator } from "../emulator";'],
    ["src/native/new.ts", 'import { provider } from "../dynamic/provider";'],
    ["src/native/new.ts", 'import { runList } from "../cli/commands/list";'],
    ["src/native/new.ts", 'import { startEmulator } from "../emulator";'],
    ["src/cli/commands/new.ts", 'import { provider } from "../../dynamic/provider";'],
    ["src/cli/stack/new.ts", 'import { nativeConfig } from "../../native/config";'],
    ["src/cli/commands/new.ts", 'import { schemaText } from "../../native/server";'],
    ["src/cli/new.ts", 'import { startEmulator } from "../emulator";'],
    ["src/index.ts", 'export { main } from "./cli/main";'],
    ["src/index.ts", 'export { startEmulator } from "./emulator";'],
  ])("%s may not depend on %s", async (file, statement) => {
    expect(await refused(file, statement)).toBe(true);
  });

  it.each([
    ["src/cli/new.ts", 'import { nameProblems, type WebhookEndpointRecord } from "../client";'],
    ["src/core/new.ts", 'import { quoteServiceText } from "../text";'],
    ["src/client/new.ts", 'import { redact } from "../text";'],
    ["src/client/new.ts", 'import { CREATE_PATH } from "../api/contract";'],
    ["src/client/new.ts", 'import { sameName } from "./rules";'],
    ["src/text/new.ts", 'import { redact } from "./redact";'],
    ["src/emulator/new.ts", 'import { LIST_PATH } from "../api/contract";'],
    ["src/emulator/new.ts", 'import { Store } from "./store";'],
    ["src/index.ts", 'export { WebhooksClient } from "./client";'],
    ["src/native/new.ts", 'import * as pulumi from "@pulumi/pulumi";'],
    ["src/native/new.ts", 'import { ProviderCore } from "../core/provider-core";'],
    ["src/dynamic/new.ts", 'import { TYPE_TOKENS } from "../core/resource";'],
    ["src/cli/commands/new.ts", 'import { CliError } from "../exit";'],
    ["src/cli/stack/new.ts", 'import { nativeConfig } from "../../core/provider-config";'],
  ])("%s may use %s", async (file, statement) => {
    expect(await refused(file, statement)).toBe(false);
  });
});

describe("no import circle anywhere in src/", () => {
  /** Every relative import and export of every file under src/, resolved to the file it names. */
  function importGraph(): Map<string, string[]> {
    const files = execFileSync("git", ["ls-files", "src"], { cwd: REPO, encoding: "utf8" })
      .split("\n")
      .filter((file) => /\.(ts|js)$/.test(file));
    const known = new Set(files);
    const resolve = (from: string, spec: string): string | undefined => {
      const base = normalize(join(dirname(from), spec));
      return [`${base}.ts`, `${base}.js`, join(base, "index.ts"), base].find((file) => known.has(file));
    };
    const graph = new Map<string, string[]>();
    for (const file of files) {
      const text = readFileSync(join(REPO, file), "utf8");
      const targets = [...text.matchAll(/(?:from|import|require\()\s*["'](\.{1,2}\/[^"']+)["']/g)]
        .map((match) => resolve(file, match[1]!))
        .filter((target): target is string => target !== undefined);
      graph.set(file, targets);
    }
    return graph;
  }

  /** The first circle found, as the files along it, or undefined. */
  function firstCircle(graph: Map<string, string[]>): string[] | undefined {
    const state = new Map<string, "open" | "done">();
    const path: string[] = [];
    const visit = (file: string): string[] | undefined => {
      if (state.get(file) === "done") return undefined;
      if (state.get(file) === "open") return [...path.slice(path.indexOf(file)), file];
      state.set(file, "open");
      path.push(file);
      for (const next of graph.get(file) ?? []) {
        const circle = visit(next);
        if (circle !== undefined) return circle;
      }
      path.pop();
      state.set(file, "done");
      return undefined;
    };
    for (const file of graph.keys()) {
      const circle = visit(file);
      if (circle !== undefined) return circle;
    }
    return undefined;
  }

  it("finds none", () => {
    expect(firstCircle(importGraph())).toBeUndefined();
  });

  it("would find one: config.ts imports project.ts, so an import back closes a circle", () => {
    const graph = importGraph();
    graph.set("src/cli/stack/project.ts", ["src/cli/stack/config.ts"]);
    const circle = firstCircle(graph);
    expect(circle).toBeDefined();
    expect(circle!.at(0)).toBe(circle!.at(-1));
    expect(circle).toEqual(expect.arrayContaining(["src/cli/stack/config.ts", "src/cli/stack/project.ts"]));
  });
});
