// The resource's definition (src/core/resource.ts) is the one home of its type tokens, inputs,
// outputs and always-secret outputs: every copy that cannot import it (the schema the plugin serves,
// the engine's wire markers the SDK exports, the JavaScript harness and benchmark, the dynamic
// class's declared outputs) is held to it here, so that a copy that drifts fails this file.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import {
  ALWAYS_SECRET_OUTPUTS,
  COMPUTED_OUTPUTS,
  INPUTS,
  OUTPUTS,
  OUTPUT_NAMES,
  PACKAGE,
  TYPE_TOKENS,
  type OutputName,
  type PropertySpec,
} from "../../src/core/resource";
import { CLIENT_DEFAULTS } from "../../src/client/options";
import { SETTINGS, SETTING_NAMES } from "../../src/core/settings-table";
import { PROVENANCE_FIELDS } from "../../src/core/state";
import { RESOURCE_REFERENCE_SIG, SECRET_SIG, SIG_KEY, UNKNOWN } from "../../src/core/wire";
import type { WebhookEndpoint } from "../../src/dynamic/webhook-endpoint";

const REPO = join(__dirname, "..", "..");
const read = (path: string): string => readFileSync(join(REPO, path), "utf8");

interface SchemaProperty {
  type?: string;
  $ref?: string;
  secret?: boolean;
  description?: string;
}
interface Schema {
  name: string;
  config: { variables: Record<string, SchemaProperty> };
  provider: { inputProperties: Record<string, SchemaProperty> };
  resources: Record<
    string,
    {
      properties: Record<string, SchemaProperty>;
      required: string[];
      inputProperties: Record<string, SchemaProperty>;
      requiredInputs: string[];
    }
  >;
  types: Record<string, { properties: Record<string, SchemaProperty>; required: string[] }>;
}
const schema = JSON.parse(read("src/native/schema.json")) as Schema;

// The dynamic class declares exactly the defined outputs (a compile error otherwise: npm run check).
type DeclaredOutputs = {
  [K in keyof WebhookEndpoint]: WebhookEndpoint[K] extends pulumi.Output<unknown> ? K : never;
}[keyof WebhookEndpoint];
type ClassOutputs = Exclude<DeclaredOutputs, "id" | "urn">;
const classDeclaresEveryOutput: [OutputName] extends [ClassOutputs] ? true : false = true;
const classDeclaresNothingElse: [ClassOutputs] extends [OutputName] ? true : false = true;

describe("the engine's wire markers", () => {
  it("are the ones @pulumi/pulumi exports", async () => {
    const { runtime: rpc } = await import("@pulumi/pulumi");
    expect({ SIG_KEY, SECRET_SIG, UNKNOWN, RESOURCE_REFERENCE_SIG }).toEqual({
      SIG_KEY: rpc.specialSigKey,
      SECRET_SIG: rpc.specialSecretSig,
      UNKNOWN: rpc.unknownValue,
      RESOURCE_REFERENCE_SIG: rpc.specialResourceSig,
    });
  });
});

describe("the schema the native plugin serves holds the resource's definition", () => {
  const resource = schema.resources[TYPE_TOKENS.native];

  it("names the package and the resource's type token", () => {
    expect(schema.name).toBe(PACKAGE);
    expect(Object.keys(schema.resources)).toEqual([TYPE_TOKENS.native]);
    expect(TYPE_TOKENS.native.startsWith(`${PACKAGE}:`)).toBe(true);
    expect(TYPE_TOKENS.provider).toBe(`pulumi:providers:${PACKAGE}`);
  });

  it("has every output, of its type, secret exactly when always secret", () => {
    expect(Object.keys(resource!.properties).sort()).toEqual([...OUTPUT_NAMES].sort());
    for (const name of OUTPUT_NAMES) {
      const spec: PropertySpec = OUTPUTS[name];
      const property = resource!.properties[name]!;
      if (spec.type === "object") expect(property.$ref, name).toBeDefined();
      else expect(property.type, name).toBe(spec.type);
      expect(property.secret === true, `${name} secret`).toBe(ALWAYS_SECRET_OUTPUTS.includes(name));
    }
  });

  it("requires the outputs every endpoint has: the API record's fields", () => {
    const record = OUTPUT_NAMES.filter((name) => (OUTPUTS[name] as PropertySpec).api !== undefined);
    expect([...resource!.required].sort()).toEqual([...record].sort());
    for (const name of COMPUTED_OUTPUTS) expect(record).toContain(name);
  });

  it("types the provenance output with the provenance's fields, requiring those every provenance records", () => {
    const ref = resource!.properties.provenance!.$ref!;
    const type = schema.types[ref.replace(/^#\/types\//, "")]!;
    expect(Object.keys(type.properties).sort()).toEqual(Object.keys(PROVENANCE_FIELDS).sort());
    const always = Object.entries(PROVENANCE_FIELDS).filter(([, required]) => required);
    expect([...type.required].sort()).toEqual(always.map(([name]) => name).sort());
  });

  it("has the native face's inputs, webhookUrl required", () => {
    const native = Object.entries(INPUTS)
      .filter(([, spec]) => !("faces" in spec) || (spec.faces as readonly string[]).includes("native"))
      .map(([name]) => name);
    expect(Object.keys(resource!.inputProperties).sort()).toEqual(native.sort());
    for (const name of native)
      expect(resource!.inputProperties[name]!.type, name).toBe(INPUTS[name as keyof typeof INPUTS].type);
    expect(resource!.requiredInputs).toEqual(["webhookUrl"]);
  });

  it("configures every setting, secret exactly when the settings table says so, as config and as a provider's input", () => {
    for (const where of [schema.config.variables, schema.provider.inputProperties]) {
      expect(Object.keys(where).sort()).toEqual([...SETTING_NAMES].sort());
      for (const name of SETTING_NAMES) {
        const setting = SETTINGS[name];
        expect(where[name]!.secret === true, `${name} secret`).toBe("secret" in setting && setting.secret);
        const type = setting.kind === "number" ? ("integer" in setting ? "integer" : "number") : setting.kind;
        expect(where[name]!.type, name).toBe(type);
      }
    }
  });

  it("describes each setting with its environment variable and the client's default", () => {
    for (const name of SETTING_NAMES) {
      const description = schema.config.variables[name]!.description ?? "";
      expect(description, name).toContain(`\`${SETTINGS[name].env}\``);
      const stated = /Default `?([^\s`]+?)`?\.(?:\s|$)/.exec(description)?.[1];
      const fallback = (CLIENT_DEFAULTS as Record<string, string | number | boolean | undefined>)[name];
      if (fallback !== undefined) expect(stated, `${name}'s default`).toBe(String(fallback));
      else expect(stated, `${name} has no default`).toBeUndefined();
    }
  });
});

describe("copies that cannot import the definition", () => {
  it("the JavaScript harness and the benchmark name the type tokens the definition has", () => {
    expect(classDeclaresEveryOutput && classDeclaresNothingElse).toBe(true);
    expect(read("scripts/harness/pulumi.mjs")).toContain(`"${TYPE_TOKENS.dynamic}"`);
    // The benchmark's program registers its floors without loading this package (it must not
    // measure it): it writes the tokens out, and they must be these.
    const bench = read("bench/engine.mjs");
    expect(bench).toContain(`"${TYPE_TOKENS.dynamic}"`);
    expect(bench).toContain(`type: ${TYPE_TOKENS.native}`);
    expect(read("bench/program/index.js")).toContain(`"${TYPE_TOKENS.dynamic}"`);
  });
});
