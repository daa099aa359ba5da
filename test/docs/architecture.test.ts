// The dependencies between src/'s folders that docs/development.md ("Where things live") states
// are kept by a lint rule (SRC_LAYERS in eslint.layers.mjs), which `npm run check` runs on every
// file. This proves the rule reports what it must and lets through what the architecture allows:
// imports are linted as if written in a file of each folder.
import { join } from "node:path";
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
  ])("%s may use %s", async (file, statement) => {
    expect(await refused(file, statement)).toBe(false);
  });
});
