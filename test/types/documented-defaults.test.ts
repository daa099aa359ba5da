// The `@default` a user reads on hover is a promise the compiler cannot check. The emulator's
// public option interfaces (src/emulator/types.ts) are bound to its zod schema by compile-time
// exact-equality assertions (src/emulator/options.ts), so names, types and optionality cannot
// drift; this test holds each documented default, there and on the client's options
// (src/client/types.ts), to the default the code really applies.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { WebhookAuthError, WebhooksClient } from "../../src/client";
import { CLIENT_DEFAULTS } from "../../src/client/options";
import { EMULATOR_PROFILES, startEmulator } from "../../src/emulator/index";
import { resolveOptions } from "../../src/emulator/resolve";

const EMULATOR_TYPES = join(__dirname, "../../src/emulator/types.ts");
const CLIENT_TYPES = join(__dirname, "../../src/client/types.ts");

/** `@default` texts that are prose rather than a value, and how each is checked instead. */
const PROSE_DEFAULTS: Record<string, (actual: unknown) => void | Promise<void>> = {
  "EmulatorOptions.adminToken": (actual) => expect(actual).toMatch(/^[0-9a-f]{32}$/),
  // Resolved options do not keep the profile; the default profile changes nothing.
  "EmulatorOptions.profile": () => expect(EMULATOR_PROFILES.default).toEqual({}),
  // Left undefined: the fault planner then weighs every kind 1.
  "RouteFaults.kinds": (actual) => expect(actual).toBeUndefined(),
  // Not a setting: the transport makes its own keep-alive Agent when none is given.
  "WebhooksClientOptions.dispatcher": (actual) => expect(actual).toBeUndefined(),
  "WebhooksClientOptions.tokenSource": async () => {
    const emulator = await startEmulator({ accessToken: "right" });
    const client = new WebhooksClient({ baseUrl: emulator.url, accessToken: "wrong", maxRetries: 0 });
    try {
      const refused = await client.list().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(WebhookAuthError);
      expect((refused as Error).message).toContain("the client's accessToken option");
    } finally {
      await client.close();
      await emulator.close();
    }
  },
};

/** Each optional field of an interface and the text of its `@default` tag (undefined without one). */
function documentedDefaults(file: string, interfaceName: string): Map<string, string | undefined> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const declaration = source.statements.find(
    (node): node is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(node) && node.name.text === interfaceName,
  );
  if (declaration === undefined) throw new Error(`no interface ${interfaceName} in ${file}`);
  const defaults = new Map<string, string | undefined>();
  for (const member of declaration.members) {
    if (!ts.isPropertySignature(member) || member.questionToken === undefined) continue;
    const tag = ts.getJSDocTags(member).find((candidate) => candidate.tagName.text === "default");
    defaults.set(
      member.name.getText(source),
      tag === undefined ? undefined : ts.getTextOfJSDocComment(tag.comment)?.trim(),
    );
  }
  return defaults;
}

/**
 * The value a `@default` text names: a JSON-like literal, `undefined` or `Date.now`, with an optional
 * "(explanation)" after it.
 */
function valueOf(text: string): unknown {
  const literal = text.replace(/\s*\([^)]*\)$/, "");
  if (literal === "undefined") return undefined;
  if (literal === "Date.now") return Date.now;
  return JSON.parse(literal.replace(/([{,]\s*)([A-Za-z_]\w*)\s*:/g, '$1"$2":'));
}

// Each interface's fields as the code resolves them when the caller gives none of them.
const WITH_NESTED = resolveOptions({ faults: { list: { rate: 0 } }, rewrite: {} });
const CASES: { file: string; interfaceName: string; resolved: object }[] = [
  { file: EMULATOR_TYPES, interfaceName: "EmulatorOptions", resolved: resolveOptions({}) },
  { file: EMULATOR_TYPES, interfaceName: "RouteFaults", resolved: WITH_NESTED.faults.list! },
  { file: EMULATOR_TYPES, interfaceName: "RewriteOptions", resolved: WITH_NESTED.rewrite },
  { file: CLIENT_TYPES, interfaceName: "WebhooksClientOptions", resolved: CLIENT_DEFAULTS },
];

describe("documented defaults", () => {
  for (const { file, interfaceName, resolved } of CASES) {
    it(`every optional field of ${interfaceName} documents the default the code applies`, async () => {
      const defaults = documentedDefaults(file, interfaceName);
      expect(defaults.size).toBeGreaterThan(0);
      for (const [field, text] of defaults) {
        const key = `${interfaceName}.${field}`;
        expect(text, `${key} has no @default`).toBeDefined();
        const actual = (resolved as Record<string, unknown>)[field];
        const prose = PROSE_DEFAULTS[key];
        if (prose !== undefined) await prose(actual);
        else expect(actual, `${key}: @default ${text}`).toEqual(valueOf(text!));
      }
    });
  }
});
