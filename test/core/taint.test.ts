import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { WebhookEndpointInputs } from "../../src/core/inputs";
import { baseUrlProblem } from "../../src/client/options";
import { secretForms } from "../../src/text";
import { ProviderCore } from "../../src/core/provider-core";
import { settingValueProblem } from "../../src/core/settings";
import type { WebhookEndpointOutputs } from "../../src/core/state";
import { createDynamicProvider } from "../../src/dynamic/provider";
import { scrubbed, scrubbedError, showsTainted } from "../../src/core/taint";
import { startEmulator, type Emulator } from "../../src/emulator";
import { propertySeed } from "../support/seed";

/**
 * The dynamic face's half of "a secret is a taint" (docs/dynamic-resource.md, "Outputs"): the
 * dynamic-provider host hands the
 * provider plain values, so what the program marked secret reaches it only through the list the
 * resource class records (`__secretInputs`, the names of the secret inputs and `webhooks:*` config
 * keys) and the `connection` input, which is secret always. Whatever the provider says (check
 * failures, drift, notices, refusals, errors) never shows one of those values. State and outputs
 * are the engine's part: proven through the real engine in test/e2e/taint.test.ts.
 */
const TOKEN = "taint_dynamic_token_2f8b61d0";

describe("the dynamic provider keeps the program's secrets out of everything it says (property-based)", () => {
  const emulators = new Map<string, Emulator>();
  beforeAll(async () => {
    for (const rewrite of ["none", "rewriting-lowercase"] as const) {
      emulators.set(
        rewrite,
        await startEmulator({ accessToken: TOKEN, ...(rewrite === "none" ? {} : { profile: rewrite }) }),
      );
    }
  });
  afterAll(async () => {
    for (const emulator of emulators.values()) await emulator.close();
  });

  it("check, create, read, diff, update and delete, for generated programs", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          secretInputs: fc.subarray(["webhookName", "webhookUrl"] as const),
          secretConfig: fc.subarray(["webhooks:baseUrl", "webhooks:ascending"] as const),
          viaConnection: fc.boolean(),
          rewrite: fc.constantFrom("none", "rewriting-lowercase"),
          marker: fc.stringMatching(/^[a-z0-9]{10}$/),
          drift: fc.boolean(),
        }),
        async ({ secretInputs, secretConfig, viaConnection, rewrite, marker, drift }) => {
          run++;
          const emulator = emulators.get(rewrite)!;
          const unique = `${marker}${run}`;
          const name = `Dyn-Name-${unique}`;
          const url = `https://Hooks.Example.com/in/Dyn-Url-${unique}?key=K${unique}`;
          const said: string[] = [];
          const core = new ProviderCore({
            face: "dynamic",
            notify: (message) => said.push(message),
            env: {},
          });
          const provider = createDynamicProvider(core);
          const ascending = `true`;
          const config: Record<string, string> = viaConnection
            ? { "webhooks:ascending": ascending }
            : {
                "webhooks:baseUrl": emulator.url,
                "webhooks:accessToken": TOKEN,
                "webhooks:ascending": ascending,
              };
          await provider.configure({
            config: { get: (key: string) => config[key], require: (key: string) => config[key] ?? "" },
          });
          const log = vi
            .spyOn(console, "log")
            .mockImplementation((...args: unknown[]) => void said.push(args.map(String).join(" ")));
          try {
            const inputs: WebhookEndpointInputs = {
              webhookName: name,
              webhookUrl: url,
              __secretInputs: [...secretInputs, ...secretConfig],
              ...(viaConnection ? { connection: { baseUrl: emulator.url, accessToken: TOKEN } } : {}),
            };
            // What must never show: each marked input and config value, the connection's values, the token.
            const secrets = [
              ...secretInputs.map((key) => inputs[key]),
              ...(secretConfig.includes("webhooks:baseUrl") || viaConnection ? [emulator.url] : []),
              TOKEN,
            ];
            const errors: string[] = [];
            const attempt = async <T>(work: () => Promise<T>): Promise<T | undefined> => {
              try {
                return await work();
              } catch (error) {
                errors.push(error instanceof Error ? error.message : String(error));
                return undefined;
              }
            };

            const checked = await provider.check({} as WebhookEndpointInputs, inputs);
            expect(checked.failures ?? []).toEqual([]);
            const bad = await provider.check({} as WebhookEndpointInputs, {
              ...inputs,
              webhookUrl: `${url}#frag`,
              webhookName: ` ${name}`,
            });
            errors.push(...(bad.failures ?? []).map((f) => f.reason));
            expect(bad.failures?.length).toBeGreaterThan(0);

            const created = await attempt(() => provider.create(inputs));
            let state = created?.outs;
            let id = created?.id;
            if (created === undefined) {
              // The service stored another form: the endpoint is recorded from the failure.
              const record = emulator
                .records()
                .find((r) => r.webhook_name.toLowerCase() === name.toLowerCase())!;
              id = String(record.webhook_id);
              state = {
                ...(await provider.read(id, { ...inputs } as unknown as WebhookEndpointOutputs)).props,
              } as WebhookEndpointOutputs;
            }
            await attempt(() => provider.create(inputs));
            if (drift)
              emulator.updateRecord(Number(id), {
                webhook_name: `${name}-renamed`,
                webhook_url: `${url}&v=2`,
              });
            await attempt(() =>
              provider.diff(id!, { ...state!, __secretInputs: inputs.__secretInputs! }, inputs),
            );
            await attempt(() => provider.read(id!, { ...state!, __secretInputs: inputs.__secretInputs! }));
            await attempt(() =>
              provider.update(id!, { ...state!, __secretInputs: inputs.__secretInputs! }, inputs),
            );
            await attempt(() => provider.delete(id!, { ...state!, __secretInputs: inputs.__secretInputs! }));

            expect(said.length + errors.length, "the run said something to check").toBeGreaterThan(0);
            const shown = secrets.filter((secret) =>
              [...said, ...errors].some((text) => text.toLowerCase().includes(secret.toLowerCase())),
            );
            expect(shown, `run ${run}: secret values in messages`).toEqual([]);
            // Values not marked secret are still named: the scan sees real text.
            if (!secretInputs.includes("webhookName") && !viaConnection)
              expect(
                [...said, ...errors].some((text) => text.toLowerCase().includes(name.toLowerCase())),
              ).toBe(true);
          } finally {
            log.mockRestore();
            await core.close();
          }
        },
      ),
      {
        numRuns: Number(process.env.TAINT_RUNS ?? 40),
        seed: propertySeed("TAINT_SEED", 20_261_129),
      },
    );
  });
});

describe("a form of a secret value is as secret as the value (both faces share the core)", () => {
  const core = new ProviderCore({ face: "native", env: {} });
  const secretUrl = { names: ["webhookUrl"], values: [] as string[] };
  const secretName = { names: ["webhookName"], values: [] as string[] };

  it("check never quotes the canonical form, a prefix or the NFC or visible form of a secret name or URL", () => {
    const cases: [Record<string, unknown>, typeof secretUrl, string[]][] = [
      [
        { webhookName: "n", webhookUrl: "https://hooks.example.com:443/a/./Secret1Path?key=Key1Secret" },
        secretUrl,
        ["Secret1Path", "Key1Secret"],
      ],
      [
        { webhookName: "n", webhookUrl: `not-a-url/${"x".repeat(120)}Secret2` },
        secretUrl,
        ["not-a-url", "xxxxxxxxxx"],
      ],
      [
        { webhookName: "Cafe\u0301-Secret3-name", webhookUrl: "https://example.com/h" },
        secretName,
        ["Secret3", "Caf"],
      ],
      [
        { webhookName: "Zw\u200bSecret4-name", webhookUrl: "https://example.com/h" },
        secretName,
        ["Secret4", "ZwSecret4"],
      ],
    ];
    for (const [news, taint, fragments] of cases) {
      const marked = { ...taint, values: [String(news[taint.names[0]!])] };
      const { failures } = core.check(news, marked);
      expect(failures.length, JSON.stringify(news)).toBeGreaterThan(0);
      const text = failures.map((f) => f.reason).join(" | ");
      for (const fragment of fragments)
        expect(text, `${JSON.stringify(news)} shows ${fragment}`).not.toContain(fragment);
      // Not secret, the same input is told the form to declare.
      expect(
        core
          .check(news)
          .failures.map((f) => f.reason)
          .join(" | "),
      ).toMatch(fragments[0]!);
    }
  });

  it("a secret base URL that cannot be reached: the error names neither it nor its host, IPv6 ones too", async () => {
    const core = new ProviderCore({ face: "dynamic", notify: () => {}, env: {} });
    const provider = createDynamicProvider(core);
    await provider.configure({ config: { get: () => undefined, require: () => "" } });
    const cases = [
      { baseUrl: "https://secrethost-abc.invalid/api", hidden: ["secrethost-abc.invalid", "secrethost-abc"] },
      { baseUrl: "http://127.0.0.1:9/SECRETPATH", hidden: ["127.0.0.1:9", "SECRETPATH"] },
      // Node.js names an IPv6 peer without brackets ("connect ECONNREFUSED ::1:9"), and the URL
      // parser writes an IPv4-mapped address in hex.
      { baseUrl: "http://[::1]:9/", hidden: ["::1:9", "[::1]"] },
      { baseUrl: "http://[::ffff:127.0.0.1]:9/", hidden: ["::ffff:7f00:1:9", "::ffff:127.0.0.1", "7f00:1"] },
    ];
    for (const { baseUrl, hidden } of cases) {
      const connection = { baseUrl, accessToken: TOKEN };
      const olds = {
        webhookId: 1,
        webhookName: "orders",
        webhookUrl: "https://example.com/hooks/orders",
        connection,
        __secretInputs: ["connection"],
      } as unknown as WebhookEndpointOutputs;
      const error = await provider
        .diff("1", olds, {
          webhookName: "orders",
          webhookUrl: "https://example.com/hooks/orders",
          connection,
          __secretInputs: ["connection"],
        })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(error, baseUrl).toBeInstanceOf(Error);
      const text = `${(error as Error).message} ${(error as Error).stack ?? ""}`;
      for (const form of [baseUrl, ...hidden]) expect(text, baseUrl).not.toContain(form);
    }
    await core.close();
  });

  it("the forms of a secret base URL: the service a provenance records, and an IPv6 peer as Node.js names it on the scheme's default port", () => {
    // Node.js names a peer "<address>:<port>", an IPv6 address without brackets, the port the
    // scheme's default when the URL gives none.
    expect(secretForms("https://[2001:db8::1]/api/")).toEqual(
      expect.arrayContaining(["https://[2001:db8::1]/api", "2001:db8::1:443", "[2001:db8::1]"]),
    );
    expect(secretForms("http://[2001:db8::1]/")).toEqual(expect.arrayContaining(["2001:db8::1:80"]));
    expect(secretForms("HTTP://Hooks.Example.COM:8443//")).toEqual(
      expect.arrayContaining(["http://hooks.example.com:8443", "hooks.example.com"]),
    );
    // An address alone too: a TLS error names it without the port ("IP: 127.0.0.2 is not in the cert's list").
    expect(secretForms("https://127.0.0.2:18643/")).toContain("127.0.0.2");
    expect(secretForms("https://[::ffff:192.0.2.2]:18643/")).toEqual(
      expect.arrayContaining(["::ffff:c000:202", "::ffff:c000:202:18643"]),
    );
    expect(secretForms("http://localhost:9/")).not.toContain("localhost");
    expect(secretForms("not a url")).toEqual(["not a url"]);
  });

  it("a secret base URL refused as plain http, or a secret setting out of range, is not repeated in the message", () => {
    expect(
      baseUrlProblem(
        "http://internal-secret-host.corp.example/open/gateway",
        false,
        "stack config webhooks:baseUrl",
      ),
    ).not.toContain("internal-secret-host");
    expect(settingValueProblem("timeoutMs", "45000-plus-a-long-secret-suffix-01234567")).not.toContain(
      "45000",
    );
  });
});

describe("the service's text outputs the dynamic face cannot make secret show the program's secrets redacted", () => {
  it("a creator and operator name echoing a secret name: create and read record them redacted", async () => {
    // docs/dynamic-resource.md, "Outputs": the engine takes a dynamic resource's secret outputs when
    // the program registers it; a service that echoes a secret into another text field must not
    // have it stored in plain text.
    const secretName = "sekrit-name-alpha-7d1";
    const emulator = await startEmulator({
      accessToken: TOKEN,
      creator: { id: 77, name: `team ${secretName.toUpperCase()}` },
    });
    const core = new ProviderCore({ face: "dynamic", notify: () => {}, env: {} });
    const provider = createDynamicProvider(core);
    const config: Record<string, string> = {
      "webhooks:baseUrl": emulator.url,
      "webhooks:accessToken": TOKEN,
    };
    await provider.configure({
      config: { get: (key: string) => config[key], require: (key: string) => config[key] ?? "" },
    });
    try {
      const inputs: WebhookEndpointInputs = {
        webhookName: secretName,
        webhookUrl: "https://example.com/echoed",
        __secretInputs: ["webhookName"],
      };
      const created = await provider.create(inputs);
      const read = await provider.read(created.id, created.outs);
      for (const outs of [created.outs, read.props] as WebhookEndpointOutputs[]) {
        expect(outs.creatorName).toBe("team [REDACTED]");
        expect(outs.operatorName).toBe("team [REDACTED]");
        expect(outs.creatorId).toBe(77);
      }
    } finally {
      await core.close();
      await emulator.close();
    }
  });
});

describe("the provider core judges secrets in messages and outputs by the text policy the CLI follows", () => {
  // docs/operator-cli.md ("What shows a secret"): only secrets of at least 4 characters are looked
  // for inside text, shorter ones hide a value equal to them; a secret of digits is looked for only
  // where it stands as a number; a text holds a secret as a person reads it.
  const secretUrl = "https://hooks.example.com/in/secret-path";

  it("a secret shorter than 4 characters never cuts a message's words apart, and is redacted as a whole quoted value", () => {
    const message = `list failed on the service: endpoint "e" at "${secretUrl}" is not there`;
    expect(scrubbed(message, ["e", secretUrl])).toBe(
      'list failed on the service: endpoint "[REDACTED]" at "[REDACTED]" is not there',
    );
    expect(scrubbed('a name \\"id\\" quoted in JSON', ["id"])).toBe('a name \\"[REDACTED]\\" quoted in JSON');
    expect(scrubbed("identity", ["id"])).toBe("identity");
    expect(scrubbed("ID", ["id"])).toBe("[REDACTED]");
    // A short number where it stands as a number: the message names the value itself.
    expect(scrubbed("gave up after 3 retries on endpoint 1305", ["3"])).toBe(
      "gave up after [REDACTED] retries on endpoint 1305",
    );
  });

  it("a secret of 4 characters or more wherever a person reads it: letter case, escapes, hidden characters", () => {
    const token = "tok-A-0123456789";
    for (const shown of [
      "TOK-A-0123456789",
      "tok&#8203;-A-0123456789",
      "tok%E2%80%8B-A-0123456789",
      "tok&shy;-A-0123456789",
      "tok\\u200b-A-0123456789",
      "tok-%41-0123456789",
    ])
      expect(scrubbed(`the service said: ${shown}.`, [token]), shown).toBe("the service said: [REDACTED].");
  });

  it("an output shows a secret of digits where it stands as a number, and a short secret only as the whole value", () => {
    expect(showsTainted("order-1001", ["1001"])).toBe(true);
    expect(showsTainted("team 1001", ["1001"])).toBe(true);
    expect(showsTainted("order-21001", ["1001"])).toBe(false);
    expect(showsTainted("order-10012", ["1001"])).toBe(false);
    expect(showsTainted("order-10&#8203;01", ["1001"])).toBe(true);
    expect(showsTainted("e", ["e"])).toBe(true);
    expect(showsTainted("orders", ["e"])).toBe(false);
    expect(showsTainted({ webhookName: "n", webhookUrl: "https://x/order-1001" }, ["1001"])).toBe(true);
    // An object's keys are ours: a secret equal to one marks nothing.
    expect(showsTainted({ webhookName: "n", webhookUrl: "https://x/" }, ["webhookUrl"])).toBe(false);
    // Numbers are not searched (the endpoint's id is never secret).
    expect(showsTainted(1001, ["1001"])).toBe(false);
  });
});

describe("an error the provider cannot rewrite is replaced, never thrown over", () => {
  const VALUE = "team-secret-name-77";
  it("a DOMException whose message shows a secret value: its message is scrubbed, no TypeError", () => {
    const error = new DOMException(`cancelled while creating ${VALUE}`, "AbortError");
    let scrubbedOne: unknown;
    expect(() => (scrubbedOne = scrubbedError(error, [VALUE]))).not.toThrow();
    expect(String(scrubbedOne)).not.toContain(VALUE);
    expect((scrubbedOne as Error).message).toContain("cancelled while creating");
    expect((scrubbedOne as Error).name).toBe("AbortError");
  });

  it("a frozen error is replaced by a copy that keeps its name and shows no secret value", () => {
    const error = Object.freeze(new RangeError(`out of range near ${VALUE}`));
    const result = scrubbedError(error, [VALUE]) as Error;
    expect(result).not.toBe(error);
    expect(result).toBeInstanceOf(Error);
    expect(result.name).toBe("RangeError");
    expect(`${result.message}\n${result.stack ?? ""}`).not.toContain(VALUE);
    expect(result.message).toContain("out of range near");
  });

  it("an error that takes the writes is scrubbed in place, its reasons too", () => {
    const error = Object.assign(new Error(`refused ${VALUE}`), { reasons: [`because ${VALUE}`, 7] });
    void error.stack;
    const result = scrubbedError(error, [VALUE]) as Error & { reasons: unknown[] };
    expect(result).toBe(error);
    expect(`${result.message}\n${result.stack ?? ""}\n${result.reasons.join()}`).not.toContain(VALUE);
    expect(result.reasons[1]).toBe(7);
  });
});
