import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveCliConnection, type ResolveOptions } from "../../src/cli/stack/config";
import { CliError, EXIT } from "../../src/cli/exit";
import { fakePulumi } from "./helpers";

const project = mkdtempSync(join(tmpdir(), "webhooks-cli-config-"));
writeFileSync(join(project, "Pulumi.yaml"), "name: cfg\nruntime: nodejs\n");
const elsewhere = mkdtempSync(join(tmpdir(), "webhooks-cli-noproject-"));
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

const STACK_TOKEN = "stack_config_token_5e1d";
const ENV_TOKEN = "environment_token_8c2a";
const FLAG_TOKEN = "flag_token_3b7f";

/** `pulumi config --json --show-secrets` as the CLI prints it. */
function configJson(values: Record<string, string>): string {
  return JSON.stringify(
    Object.fromEntries(
      Object.entries(values).map(([k, v]) => [k, { value: v, secret: k.endsWith("accessToken") }]),
    ),
  );
}

function options(overrides: Partial<ResolveOptions>, warnings: string[] = []): ResolveOptions {
  return {
    flags: {},
    cwd: project,
    env: {},
    pulumi: fakePulumi({}),
    warn: (m) => warnings.push(m),
    ...overrides,
  };
}

describe("connection settings: flags, then the stack's config, then the environment", () => {
  const stackConfig = fakePulumi({
    "config --json --show-secrets": () => ({
      stdout: configJson({
        "webhooks:baseUrl": "https://stack.example.com",
        "webhooks:accessToken": STACK_TOKEN,
        "webhooks:pageSize": "25",
      }),
    }),
  });
  const env = {
    WEBHOOKS_BASE_URL: "https://env.example.com",
    WEBHOOKS_ACCESS_TOKEN: ENV_TOKEN,
    WEBHOOKS_TIMEOUT_MS: "1234",
  };

  it("flags win over the stack's config and the environment, each setting on its own", async () => {
    const both = await resolveCliConnection(
      options({
        flags: { baseUrl: "https://flag.example.com", accessToken: FLAG_TOKEN },
        env,
        pulumi: stackConfig,
      }),
    );
    expect(both.connection.client).toMatchObject({
      baseUrl: "https://flag.example.com",
      accessToken: FLAG_TOKEN,
      tokenSource: "the --access-token flag",
    });
    expect(both.sources.baseUrl).toBe("the --base-url flag");
    const urlOnly = await resolveCliConnection(
      options({ flags: { baseUrl: "https://flag.example.com" }, env, pulumi: stackConfig }),
    );
    expect(urlOnly.connection.client).toMatchObject({
      baseUrl: "https://flag.example.com",
      accessToken: STACK_TOKEN,
      tokenSource: "stack config webhooks:accessToken",
    });
  });

  it("the stack's config wins over the environment, tuning included; --stack reaches pulumi", async () => {
    const pulumi = fakePulumi({
      "config --json --show-secrets": () => ({
        stdout: configJson({
          "webhooks:baseUrl": "https://stack.example.com",
          "webhooks:accessToken": STACK_TOKEN,
          "webhooks:pageSize": "25",
        }),
      }),
    });
    const resolved = await resolveCliConnection(options({ env, pulumi, stack: "prod" }));
    expect(resolved.connection.client).toMatchObject({
      baseUrl: "https://stack.example.com",
      accessToken: STACK_TOKEN,
      pageSize: 25,
      timeoutMs: 1234,
    });
    expect(resolved.sources).toEqual({
      baseUrl: "stack config webhooks:baseUrl (stack prod)",
      accessToken: "stack config webhooks:accessToken (stack prod)",
    });
    expect(pulumi.calls.map((c) => c.args)).toEqual([
      ["config", "--json", "--show-secrets", "--stack", "prod"],
      ["stack", "export", "--show-secrets", "--stack", "prod"],
      // The revealed export gave nothing (this fake has no state): the plain one is tried for which fields are secret.
      ["stack", "export", "--stack", "prod"],
    ]);
  });

  it("in a project, everything printed is scrubbed of the values the stack holds secret, its signing secrets marked as shown on request", async () => {
    const SIG = "4dabf18193072939515e22adb298388d";
    const secret = (value: unknown) => ({
      [SIG]: "1b47061264138c4ac30d75fd1eb44270",
      plaintext: JSON.stringify(value),
    });
    const state = {
      version: 3,
      deployment: {
        resources: [
          {
            urn: "urn:pulumi:prod::shop::webhooks:index:WebhookEndpoint::orders",
            type: "webhooks:index:WebhookEndpoint",
            inputs: {
              webhookName: "orders",
              webhookUrl: secret("https://example.com/hook?key=hidden-key-1"),
            },
            outputs: {
              webhookName: "orders",
              webhookUrl: secret("https://example.com/hook?key=hidden-key-1"),
              signSecret: secret("whsec_shown_on_request"),
              pageSize: secret(7),
            },
          },
        ],
      },
    };
    const pulumi = fakePulumi({
      "config --json --show-secrets": () => ({
        stdout: configJson({
          "webhooks:baseUrl": "https://stack.example.com",
          "webhooks:accessToken": STACK_TOKEN,
        }),
      }),
      "stack export --show-secrets": () => ({ stdout: JSON.stringify(state) }),
    });
    const resolved = await resolveCliConnection(options({ env, pulumi }));
    expect(resolved.secrets).toEqual([
      STACK_TOKEN,
      "https://example.com/hook?key=hidden-key-1",
      "whsec_shown_on_request",
    ]);
    expect(resolved.signingSecrets).toEqual(["whsec_shown_on_request"]);
  });

  it("outside a Pulumi project, pulumi is not asked and the environment is used", async () => {
    const pulumi = fakePulumi({});
    const warnings: string[] = [];
    const resolved = await resolveCliConnection(
      options({ cwd: elsewhere, env, pulumi, stack: "prod" }, warnings),
    );
    expect(resolved.connection.client).toMatchObject({
      baseUrl: "https://env.example.com",
      accessToken: ENV_TOKEN,
      tokenSource: "environment variable WEBHOOKS_ACCESS_TOKEN",
    });
    expect(pulumi.calls).toEqual([]);
    expect(warnings.join("\n")).toMatch(/--stack prod: no Pulumi.yaml/);
  });

  it("pulumi not on PATH: says so and falls back to the environment", async () => {
    const warnings: string[] = [];
    const resolved = await resolveCliConnection(
      options({ env, pulumi: fakePulumi({}, { missing: true }) }, warnings),
    );
    expect(resolved.connection.client.accessToken).toBe(ENV_TOKEN);
    expect(warnings.join("\n")).toMatch(
      /Pulumi.yaml is here, but pulumi is not on PATH.*using flags and environment only/,
    );
  });

  it("pulumi failing (no passphrase, no stack): says why and falls back to the environment", async () => {
    const warnings: string[] = [];
    const pulumi = fakePulumi({
      "config --json": () => ({
        code: 255,
        stderr: "error: passphrase must be set with PULUMI_CONFIG_PASSPHRASE\n",
      }),
    });
    const resolved = await resolveCliConnection(options({ env, pulumi }, warnings));
    expect(resolved.connection.client.baseUrl).toBe("https://env.example.com");
    expect(warnings.join("\n")).toMatch(
      /could not read the stack's config .*passphrase must be set.*using flags and environment only/,
    );
  });

  it("a missing setting is a configuration error (exit 3) naming every place, never the token", async () => {
    const error = await resolveCliConnection(options({ env: { WEBHOOKS_ACCESS_TOKEN: ENV_TOKEN } })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.config);
    const message = (error as CliError).message;
    expect(message).toMatch(
      /base URL is not set: pass --base-url, or set stack config webhooks:baseUrl .*, or set WEBHOOKS_BASE_URL/,
    );
    expect(message).not.toMatch(/access token is not set/);
    expect(message).not.toContain(ENV_TOKEN);
    const both = (await resolveCliConnection(options({ cwd: elsewhere })).catch(
      (e: unknown) => e,
    )) as CliError;
    expect(both.message).toMatch(
      /access token is not set: pass --access-token \(discouraged.*\), or set stack config webhooks:accessToken .*run from the project directory.*, or set WEBHOOKS_ACCESS_TOKEN/,
    );
  });

  it("an invalid setting is a configuration error (exit 3) naming where it came from", async () => {
    const badUrl = (await resolveCliConnection(options({ flags: { baseUrl: "ftp://nope" }, env })).catch(
      (e: unknown) => e,
    )) as CliError;
    expect(badUrl.exitCode).toBe(EXIT.config);
    expect(badUrl.message).toMatch(/--base-url/);
    const badTuning = (await resolveCliConnection(
      options({ env: { ...env, WEBHOOKS_MAX_RETRIES: "lots" } }),
    ).catch((e: unknown) => e)) as CliError;
    expect(badTuning.exitCode).toBe(EXIT.config);
    expect(badTuning.message).toMatch(/WEBHOOKS_MAX_RETRIES/);
  });

  it("a retired setting in the stack's config is reported", async () => {
    const warnings: string[] = [];
    const pulumi = fakePulumi({
      "config --json": () => ({ stdout: configJson({ "webhooks:adoptRecentMinutes": "60" }) }),
    });
    await resolveCliConnection(options({ env, pulumi }, warnings));
    expect(warnings.join("\n")).toMatch(/webhooks:adoptRecentMinutes is no longer used/);
  });
});
