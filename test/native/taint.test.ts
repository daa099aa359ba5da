import { createRequire } from "node:module";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { REPO } from "../support/global-setup";
import { ProviderHost } from "../support/provider-host";
import { propertySeed } from "../support/seed";

/**
 * A secret is a taint, not a field (docs/native-provider.md, "Secrets on the native face"): whatever the
 * program marks secret, any input of the
 * resource or any provider setting, stays secret in everything the native plugin answers: the
 * inputs Check returns (the engine stores them), the outputs of Create, Read and Update, what Read
 * returns as inputs, every failure and error message, and every notice it prints. Driven over gRPC
 * as the engine drives it, against the real plugin process, for generated programs: which inputs
 * and which settings are secret, their values, a service that stores another form of the URL,
 * drift on the service, and a create that is refused.
 *
 * The expected results come from the promise alone: a value the request marked secret never
 * appears outside a secret wrapper in any answer, in any letter case; an output property whose
 * input was secret is itself wrapped.
 */
const SIG = "4dabf18193072939515e22adb298388d";
const SECRET = "1b47061264138c4ac30d75fd1eb44270";
const wrap = (value: unknown) => ({ [SIG]: SECRET, value });
const URN = (name: string) => `urn:pulumi:dev::taint::webhooks:index:WebhookEndpoint::${name}`;
const TOKEN = "taint_native_token_7e51c0a9";

/** Every string of an answer that is not inside a secret wrapper. */
function exposedTexts(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(exposedTexts);
  if (typeof value === "object" && value !== null) {
    const object = value as Record<string, unknown>;
    if (object[SIG] === SECRET) return [];
    return Object.values(object).flatMap(exposedTexts);
  }
  return [];
}

function isWrapped(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as Record<string, unknown>)[SIG] === SECRET;
}

/** Settings a program may mark secret, with values the plugin accepts and that a text search can find. */
const SETTING_VALUES = {
  timeoutMs: (n: number) => 31_000 + n,
  maxRetries: () => 3,
  createSettleMs: (n: number) => 2_700 + n,
  // Above the emulator's page maximum (it clamps): a number no id or count in an answer looks like.
  pageSize: (n: number) => 4_170 + n,
} as const;
type Setting = "baseUrl" | "accessToken" | keyof typeof SETTING_VALUES;
const SETTINGS: Setting[] = [
  "baseUrl",
  "accessToken",
  "timeoutMs",
  "maxRetries",
  "createSettleMs",
  "pageSize",
];

describe("the native plugin keeps every secret the program marked secret (property-based, over gRPC)", () => {
  const emulators = new Map<string, Emulator>();
  let plugin: ProviderHost;

  beforeAll(async () => {
    for (const rewrite of ["none", "rewriting-lowercase"] as const) {
      emulators.set(
        rewrite,
        await startEmulator({ accessToken: TOKEN, ...(rewrite === "none" ? {} : { profile: rewrite }) }),
      );
    }
    plugin = await ProviderHost.startNative({ WEBHOOKS_BASE_URL: "", WEBHOOKS_ACCESS_TOKEN: "" });
  });
  afterAll(async () => {
    await plugin.stop();
    for (const emulator of emulators.values()) await emulator.close();
  });

  it("in Check, Create, Read, Update, Diff, Delete, failures, errors and notices, for generated programs", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          secretInputs: fc.subarray(["webhookName", "webhookUrl"] as const),
          secretSettings: fc.subarray(SETTINGS),
          nameCase: fc.constantFrom("lower", "Mixed"),
          rewrite: fc.constantFrom("none", "rewriting-lowercase"),
          // Letters only, and the run's number after an `r`: a secret setting's number (2769) must
          // not turn up inside the plain name the program declared (marker "…27" then run 69 did).
          marker: fc.stringMatching(/^[a-z]{10}$/),
          drift: fc.boolean(),
          // How the program spells the base URL: a secret one is secret in every form (the service a
          // provenance records drops the slash).
          baseUrlSpelling: fc.constantFrom("as-is", "trailing-slash", "upper-scheme-slashes"),
        }),
        async ({ secretInputs, secretSettings, nameCase, rewrite, marker, drift, baseUrlSpelling }) => {
          run++;
          const emulator = emulators.get(rewrite)!;
          // Unique per run (a shrunk case repeats its marker): a second create of one name and URL is refused.
          const unique = `${marker}r${run}`;
          const name = nameCase === "lower" ? `tnt-name-${unique}` : `Tnt-Name-${unique}`;
          const url = `https://Hooks.Example.com/in/${nameCase === "lower" ? "tnt-url" : "Tnt-Url"}-${unique}?key=K${unique}`;
          const inputs: Record<string, unknown> = { webhookName: name, webhookUrl: url };
          for (const key of secretInputs) inputs[key] = wrap(inputs[key]);
          const baseUrl =
            baseUrlSpelling === "as-is"
              ? emulator.url
              : baseUrlSpelling === "trailing-slash"
                ? `${emulator.url}/`
                : `${emulator.url.replace(/^http:/, "HTTP:")}//`;
          const settings: Record<string, unknown> = { baseUrl, accessToken: TOKEN };
          for (const [key, make] of Object.entries(SETTING_VALUES)) settings[key] = make(run);
          for (const key of secretSettings) settings[key] = wrap(settings[key]);

          // What must never show: each value marked secret, and the token always (the schema marks it).
          // (maxRetries, 0 to 100, cannot be told apart from an id in a text search: it is marked, not searched.)
          const secrets = [
            ...secretInputs.map((key) => String(key === "webhookName" ? name : url)),
            ...secretSettings
              .filter((key) => key !== "accessToken" && key !== "maxRetries")
              .map((key) => String((settings[key] as { value: unknown }).value)),
            // The service a secret base URL names, however it was spelled (its origin: the emulator has no path).
            ...(secretSettings.includes("baseUrl") ? [new URL(baseUrl).origin] : []),
            TOKEN,
          ];
          const answers: unknown[] = [];
          const messages: string[] = [];
          const shows = (texts: string[]) =>
            secrets.filter((secret) =>
              texts.some((text) =>
                /^\d+$/.test(secret)
                  ? new RegExp(`(?<!\\d)${secret}(?!\\d)`).test(text)
                  : text.toLowerCase().includes(secret.toLowerCase()),
              ),
            );

          const checkedConfig = await plugin.callRaw(
            "checkConfig",
            checkRequest(plugin, "urn:pulumi:dev::taint::pulumi:providers:webhooks::p", {}, settings),
          );
          answers.push(checkedConfig.response?.getInputs().toJavaScript());
          // The token is a secret by the schema's word, set with --secret or not.
          expect(
            isWrapped(
              (checkedConfig.response?.getInputs().toJavaScript() as Record<string, unknown>).accessToken,
            ),
            "CheckConfig returns the token as a secret",
          ).toBe(true);
          await plugin.configure(settings, {});

          const checked = await plugin.check(URN(`r${run}`), {}, inputs);
          expect(checked.failures).toEqual([]);
          answers.push(checked.inputs);
          for (const key of secretInputs)
            expect(isWrapped(checked.inputs[key]), `Check keeps ${key} secret`).toBe(true);

          // A service that stores another form of the URL: the endpoint exists, the create fails
          // saying so, and the engine records it from the failure's details: all of it answers.
          const attempt = await plugin.callRaw("create", createOf(plugin, URN(`r${run}`), checked.inputs));
          const created =
            attempt.error === undefined
              ? {
                  id: String(attempt.response.getId()),
                  properties: attempt.response.getProperties().toJavaScript() as Record<string, unknown>,
                }
              : initFailure(attempt.error);
          if (attempt.error !== undefined) messages.push(String((attempt.error as Error).message));
          answers.push(created.properties);
          for (const key of secretInputs)
            expect(isWrapped(created.properties[key]), `Create keeps ${key} secret`).toBe(true);
          expect(isWrapped(created.properties.signSecret)).toBe(true);
          // The service's base URL (its provenance) is secret when the program marked it so.
          if (secretSettings.includes("baseUrl"))
            expect(isWrapped(created.properties.provenance), "provenance secret with a secret baseUrl").toBe(
              true,
            );

          // A second create of the same name and URL is refused, naming the endpoint: the message quotes
          // nothing secret.
          const again = await plugin.callRaw("create", createOf(plugin, URN(`again${run}`), checked.inputs));
          expect(again.error, "a duplicate create is refused").toBeDefined();
          messages.push(String((again.error as Error).message));
          if (drift) emulator.updateRecord(Number(created.id), { webhook_name: `${name}-renamed` });
          const read = await plugin.read(created.id, URN(`r${run}`), created.properties);
          answers.push(read.properties, read.inputs);
          for (const key of secretInputs) {
            expect(isWrapped(read.properties[key]), `Read keeps ${key} secret`).toBe(true);
            expect(isWrapped(read.inputs?.[key]), `Read's inputs keep ${key} secret`).toBe(true);
          }
          const diffRequest = diffOf(plugin, created.id, URN(`r${run}`), created.properties, checked.inputs);
          const diffed = await plugin.callRaw("diff", diffRequest);
          answers.push(diffed.response?.toObject());
          if (diffed.error !== undefined) messages.push(String((diffed.error as Error).message));
          const updated = await plugin.update(created.id, URN(`r${run}`), created.properties, checked.inputs);
          answers.push(updated);
          for (const key of secretInputs)
            expect(isWrapped(updated[key]), `Update keeps ${key} secret`).toBe(true);
          await plugin.delete(created.id, URN(`r${run}`), created.properties);

          // An invalid secret URL: the failure says why without showing it.
          const bad = await plugin.check(
            URN(`bad${run}`),
            {},
            {
              ...inputs,
              webhookUrl: secretInputs.includes("webhookUrl") ? wrap(`${url}#frag`) : `${url}#frag`,
            },
          );
          expect(bad.failures.length).toBeGreaterThan(0);
          messages.push(...bad.failures.map((f) => f.reason));
          const badConfig = await plugin.checkConfig({
            ...settings,
            pageSize: secretSettings.includes("pageSize") ? wrap(0) : 0,
          });
          expect(badConfig.map((f) => f.property)).toContain("pageSize");
          messages.push(...badConfig.map((f) => f.reason));

          const leaked = shows([
            ...answers.flatMap(exposedTexts),
            ...messages,
            plugin.output.stdout,
            plugin.output.stderr,
          ]);
          expect(leaked, `run ${run}: secret values shown outside a secret`).toEqual([]);
          // The scan sees real data: every value not marked secret does appear somewhere.
          if (!secretInputs.includes("webhookName"))
            expect(
              answers.flatMap(exposedTexts).some((t) => t.toLowerCase().includes(name.toLowerCase())),
            ).toBe(true);
        },
      ),
      {
        numRuns: Number(process.env.TAINT_RUNS ?? 40),
        seed: propertySeed("TAINT_SEED", 20_261_130),
      },
    );
    expect(run).toBeGreaterThanOrEqual(Number(process.env.TAINT_RUNS ?? 40));
  });
});

/* eslint-disable @typescript-eslint/no-explicit-any */
const pulumiRequire = createRequire(join(REPO, "node_modules/@pulumi/pulumi/package.json"));
const statusPb = pulumiRequire("./proto/status_pb");
const providerPb = pulumiRequire("./proto/provider_pb");

/** The id and properties a failed create hands the engine (ErrorResourceInitFailed in the status details). */
function initFailure(error: any): { id: string; properties: Record<string, unknown> } {
  const details = error.metadata?.get("grpc-status-details-bin")[0] as Buffer | undefined;
  if (details === undefined)
    throw new Error(`create failed without recording the endpoint: ${String(error.message)}`);
  const status = statusPb.Status.deserializeBinary(new Uint8Array(details));
  const failure = providerPb.ErrorResourceInitFailed.deserializeBinary(status.getDetailsList()[0].getValue());
  return { id: failure.getId(), properties: failure.getProperties().toJavaScript() };
}

function checkRequest(plugin: ProviderHost, urn: string, olds: object, news: object): unknown {
  const { provproto, structproto } = plugin.protocol;
  const request = new provproto.CheckRequest();
  request.setUrn(urn);
  request.setOlds(structproto.Struct.fromJavaScript(olds));
  request.setNews(structproto.Struct.fromJavaScript(news));
  return request;
}

function diffOf(plugin: ProviderHost, id: string, urn: string, olds: object, news: object): unknown {
  const { provproto, structproto } = plugin.protocol;
  const request = new provproto.DiffRequest();
  request.setId(id);
  request.setUrn(urn);
  request.setOlds(structproto.Struct.fromJavaScript(olds));
  request.setNews(structproto.Struct.fromJavaScript(news));
  return request;
}

function createOf(plugin: ProviderHost, urn: string, properties: object): unknown {
  const { provproto, structproto } = plugin.protocol;
  const request = new provproto.CreateRequest();
  request.setUrn(urn);
  request.setProperties(structproto.Struct.fromJavaScript(properties));
  return request;
}
