// How the provider resolves its settings, from docs/configuration.md ("Where each setting is read",
// "The settings", "What the settings promise", "Retired settings"): each setting on its own, first
// place found wins (the resource's connection input, the provider configuration, the environment);
// a missing base URL or token names every place it could be set; a value out of range is refused
// naming where it is set, without repeating it; booleans are 1/true/yes or 0/false/no.
import { describe, expect, it } from "vitest";
import {
  EMPTY_CONFIG,
  accessTokensIn,
  resolveConnection,
  retiredSettingsInUse,
  stackConfig,
} from "../../src/core/settings";

const URL_A = "https://a.example.com";
const URL_B = "https://b.example.com";
const config = (values: Record<string, string>) => stackConfig((key) => values[key]);
const resolve = (...args: Parameters<typeof resolveConnection>) => resolveConnection(...args);
const failure = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a failure");
};

describe("each setting on its own, first place found wins", () => {
  it("the resource's input over the stack config over the environment, for the URL and the token apart", () => {
    const env = { WEBHOOKS_BASE_URL: URL_B, WEBHOOKS_ACCESS_TOKEN: "env-token-1234" };
    const stack = config({ "webhooks:accessToken": "config-token-1234" });
    const fromResource = resolve(stack, { baseUrl: URL_A }, env, "orders.connection");
    expect(fromResource.client).toMatchObject({ baseUrl: URL_A, accessToken: "config-token-1234" });
    expect(fromResource.client.tokenSource).toContain("webhooks:accessToken");
    const fromEnv = resolve(EMPTY_CONFIG, { accessToken: "resource-token-1234" }, env, "orders.connection");
    expect(fromEnv.client).toMatchObject({ baseUrl: URL_B, accessToken: "resource-token-1234" });
    expect(fromEnv.client.tokenSource).toContain("orders.connection.accessToken");
    const onlyEnv = resolve(EMPTY_CONFIG, undefined, env);
    expect(onlyEnv.client.tokenSource).toContain("WEBHOOKS_ACCESS_TOKEN");
  });

  it("a blank value is not set: the next place is read", () => {
    const env = { WEBHOOKS_BASE_URL: URL_B, WEBHOOKS_ACCESS_TOKEN: "env-token-1234" };
    const resolved = resolve(
      config({ "webhooks:baseUrl": "  ", "webhooks:accessToken": "" }),
      undefined,
      env,
    );
    expect(resolved.client).toMatchObject({ baseUrl: URL_B, accessToken: "env-token-1234" });
  });

  it("allowInsecureHttp: the resource's false wins over the environment's yes", () => {
    const env = {
      WEBHOOKS_BASE_URL: "http://api.example.com",
      WEBHOOKS_ACCESS_TOKEN: "env-token-1234",
      WEBHOOKS_ALLOW_INSECURE_HTTP: "yes",
    };
    expect(resolve(EMPTY_CONFIG, undefined, env).client.allowInsecureHttp).toBe(true);
    expect(failure(() => resolve(EMPTY_CONFIG, { allowInsecureHttp: false }, env))).toMatch(/http/);
    expect(
      resolve(EMPTY_CONFIG, { allowInsecureHttp: true }, { ...env, WEBHOOKS_ALLOW_INSECURE_HTTP: "no" })
        .client,
    ).toMatchObject({ allowInsecureHttp: true });
  });
});

describe("a missing base URL or token names every place it could be set", () => {
  it("the base URL alone: the resource's input, the stack config command, the environment variable", () => {
    const message = failure(() =>
      resolve(EMPTY_CONFIG, undefined, { WEBHOOKS_ACCESS_TOKEN: "env-token-1234" }, "orders.connection"),
    );
    expect(message).toContain("orders.connection.baseUrl");
    expect(message).toContain("pulumi config set webhooks:baseUrl https://...");
    expect(message).toContain("WEBHOOKS_BASE_URL");
    expect(message).not.toMatch(/access token/);
  });

  it("the token alone, whose command sets it as a secret; the native face has no resource input to name", () => {
    const message = failure(() => resolve(EMPTY_CONFIG, undefined, { WEBHOOKS_BASE_URL: URL_A }));
    expect(message).toContain("pulumi config set --secret webhooks:accessToken <token>");
    expect(message).toContain("WEBHOOKS_ACCESS_TOKEN");
    expect(message).not.toMatch(/base URL|\.accessToken input|give /);
  });

  it("both: both named, in one message", () => {
    const message = failure(() => resolve(EMPTY_CONFIG, undefined, {}, "orders.connection"));
    expect(message).toMatch(/base URL is not set.*; the access token is not set/);
    expect(message).toContain("give orders.connection.accessToken");
  });
});

describe("a value out of its range is refused where it is set, without repeating it", () => {
  const env = (name: string, value: string) => ({
    WEBHOOKS_BASE_URL: URL_A,
    WEBHOOKS_ACCESS_TOKEN: "env-token-1234",
    [name]: value,
  });
  it.each([
    ["WEBHOOKS_TIMEOUT_MS", "0", "timeoutMs"],
    ["WEBHOOKS_TIMEOUT_MS", "3600001", "timeoutMs"],
    ["WEBHOOKS_MAX_RETRIES", "101", "maxRetries"],
    ["WEBHOOKS_MAX_RETRIES", "-1", "maxRetries"],
    ["WEBHOOKS_MAX_RETRIES", "1.5", "maxRetries"],
    ["WEBHOOKS_PAGE_SIZE", "0", "pageSize"],
    ["WEBHOOKS_PAGE_SIZE", "10001", "pageSize"],
    ["WEBHOOKS_CREATE_SETTLE_MS", "600001", "createSettleMs"],
    ["WEBHOOKS_CREATE_SETTLE_MS", "soon", "createSettleMs"],
    ["WEBHOOKS_ALLOW_INSECURE_HTTP", "maybe", "allowInsecureHttp"],
  ])("%s=%s", (variable, value) => {
    const message = failure(() => resolve(EMPTY_CONFIG, undefined, env(variable, value)));
    expect(message).toContain(`environment variable ${variable} must be`);
    expect(message).not.toContain(` ${value} `);
  });

  it.each([
    ["WEBHOOKS_TIMEOUT_MS", "1", "timeoutMs", 1],
    ["WEBHOOKS_TIMEOUT_MS", "3600000", "timeoutMs", 3_600_000],
    ["WEBHOOKS_MAX_RETRIES", "0", "maxRetries", 0],
    ["WEBHOOKS_MAX_RETRIES", " 100 ", "maxRetries", 100],
    ["WEBHOOKS_PAGE_SIZE", "10000", "pageSize", 10_000],
    ["WEBHOOKS_CREATE_SETTLE_MS", "600000", "createSettleMs", 600_000],
  ])("%s=%s is accepted at its bound", (variable, value, name, expected) => {
    expect(
      (resolve(EMPTY_CONFIG, undefined, env(variable, value)).client as unknown as Record<string, unknown>)[
        name
      ],
    ).toBe(expected);
  });

  it.each([
    ["1", true],
    ["TRUE", true],
    ["Yes", true],
    ["0", false],
    ["false", false],
    ["NO", false],
  ])("allowInsecureHttp %s is %s", (value, expected) => {
    expect(
      resolve(EMPTY_CONFIG, undefined, env("WEBHOOKS_ALLOW_INSECURE_HTTP", value)).client.allowInsecureHttp,
    ).toBe(expected);
  });

  it("the stack config's value is named by its key, and wins over the environment's", () => {
    const message = failure(() =>
      resolve(config({ "webhooks:maxRetries": "500" }), undefined, env("WEBHOOKS_MAX_RETRIES", "2")),
    );
    expect(message).toContain("stack config webhooks:maxRetries must be a whole number");
  });
});

describe("the connection's cache key", () => {
  const env = { WEBHOOKS_BASE_URL: URL_A, WEBHOOKS_ACCESS_TOKEN: "env-token-1234" };
  const key = (extra: Record<string, string> = {}) =>
    resolve(EMPTY_CONFIG, undefined, { ...env, ...extra }).key;
  it("never holds the token, and tells tokens, services and settings apart", () => {
    expect(key()).not.toContain("env-token-1234");
    expect(key({ WEBHOOKS_ACCESS_TOKEN: "other-token-1234" })).not.toBe(key());
    expect(key({ WEBHOOKS_BASE_URL: URL_B })).not.toBe(key());
    expect(key({ WEBHOOKS_MAX_RETRIES: "1" })).not.toBe(key({ WEBHOOKS_MAX_RETRIES: "2" }));
    expect(key({ WEBHOOKS_ALLOW_INSECURE_HTTP: "1" })).not.toBe(key());
    expect(key({ WEBHOOKS_PRINCIPAL_ID: "1001" })).not.toBe(key());
    expect(key({ WEBHOOKS_BASE_URL: `${URL_A}/` })).toBe(key());
    expect(key()).toBe(key());
  });
});

describe("tokens the settings hold, whether or not a connection resolves", () => {
  it("from each place, as given and trimmed", () => {
    expect(
      accessTokensIn(
        config({ "webhooks:accessToken": "config-token-1234" }),
        { accessToken: " resource-token " },
        {
          WEBHOOKS_ACCESS_TOKEN: "env-token-1234",
        },
      ).sort(),
    ).toEqual([" resource-token ", "config-token-1234", "env-token-1234", "resource-token"].sort());
    expect(accessTokensIn(EMPTY_CONFIG, undefined, { WEBHOOKS_ACCESS_TOKEN: "  " })).toEqual([]);
  });
});

describe("retired settings", () => {
  it("webhooks:adoptRecentMinutes and WEBHOOKS_ADOPT_RECENT_MINUTES are each named, with what replaced them", () => {
    const both = retiredSettingsInUse((key) => (key === "webhooks:adoptRecentMinutes" ? "10" : undefined), {
      WEBHOOKS_ADOPT_RECENT_MINUTES: "5",
    });
    expect(both).toHaveLength(1);
    expect(both[0]).toMatch(
      /^webhooks:adoptRecentMinutes and WEBHOOKS_ADOPT_RECENT_MINUTES is no longer used: /,
    );
    expect(both[0]).toContain("webhooks recover");
    expect(retiredSettingsInUse(() => undefined, { WEBHOOKS_ADOPT_RECENT_MINUTES: "5" })[0]).toMatch(
      /^WEBHOOKS_ADOPT_RECENT_MINUTES is no longer used/,
    );
    expect(retiredSettingsInUse(() => undefined, {})).toEqual([]);
  });
});
