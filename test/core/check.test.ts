import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provider } from "../../src/dynamic/provider";

import { startEmulator, type Emulator } from "../../src/emulator";
import { TOKEN } from "../support/helpers";
import { UNKNOWN } from "../../src/core/wire";

/**
 * Bad input is refused by check, before any API call, with a message per property that says what
 * to fix. The emulator is configured as the target so that any call would be counted.
 */
const good = { webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" };

const BAD_INPUTS: { label: string; news: Record<string, unknown>; property: string; says: RegExp }[] = [
  {
    label: "ftp scheme",
    news: { ...good, webhookUrl: "ftp://example.com/x" },
    property: "webhookUrl",
    says: /must use https:\/\/ or http:\/\//i,
  },
  {
    label: "javascript scheme",
    news: { ...good, webhookUrl: "javascript:alert(1)" },
    property: "webhookUrl",
    says: /https:\/\/ or http:\/\//i,
  },
  {
    label: "file scheme",
    news: { ...good, webhookUrl: "file:///etc/passwd" },
    property: "webhookUrl",
    says: /https:\/\/ or http:\/\//i,
  },
  {
    label: "relative URL",
    news: { ...good, webhookUrl: "/hooks/orders" },
    property: "webhookUrl",
    says: /not an absolute URL.*https:\/\/example.com/,
  },
  {
    label: "host without scheme",
    news: { ...good, webhookUrl: "example.com/hooks" },
    property: "webhookUrl",
    says: /not an absolute URL/,
  },
  {
    label: "empty URL",
    news: { ...good, webhookUrl: "" },
    property: "webhookUrl",
    says: /not an absolute URL/,
  },
  {
    label: "user and password in URL",
    news: { ...good, webhookUrl: "https://user:pw@example.com/x" },
    property: "webhookUrl",
    says: /credentials.*remove them/,
  },
  {
    label: "user only in URL",
    news: { ...good, webhookUrl: "https://token@example.com/x" },
    property: "webhookUrl",
    says: /credentials/,
  },
  {
    label: "space in URL",
    news: { ...good, webhookUrl: "https://example.com/a b" },
    property: "webhookUrl",
    says: /white space.*%20/,
  },
  {
    label: "newline in URL",
    news: { ...good, webhookUrl: "https://example.com/a\nb" },
    property: "webhookUrl",
    says: /control character/,
  },
  {
    label: "huge URL",
    news: { ...good, webhookUrl: `https://example.com/${"a".repeat(3000)}` },
    property: "webhookUrl",
    says: /longer than 2048/,
  },
  {
    label: "URL as a number",
    news: { ...good, webhookUrl: 42 },
    property: "webhookUrl",
    says: /must be a string, got number/,
  },
  {
    label: "URL as an object",
    news: { ...good, webhookUrl: { href: "https://x" } },
    property: "webhookUrl",
    says: /must be a string, got an object/,
  },
  {
    label: "URL missing",
    news: { webhookName: "orders" },
    property: "webhookUrl",
    says: /webhookUrl is required/,
  },
  {
    label: "empty name",
    news: { ...good, webhookName: "" },
    property: "webhookName",
    says: /empty: give the endpoint a name/,
  },
  { label: "blank name", news: { ...good, webhookName: "   " }, property: "webhookName", says: /empty/ },
  {
    label: "huge name",
    news: { ...good, webhookName: "n".repeat(129) },
    property: "webhookName",
    says: /longer than 128 characters/,
  },
  {
    label: "tab in name",
    news: { ...good, webhookName: "a\tb" },
    property: "webhookName",
    says: /control character/,
  },
  {
    label: "NUL in name",
    news: { ...good, webhookName: "a\u0000b" },
    property: "webhookName",
    says: /control character/,
  },
  {
    label: "padded name",
    news: { ...good, webhookName: " orders " },
    property: "webhookName",
    says: /white space/,
  },
  {
    label: "name as a boolean",
    news: { ...good, webhookName: true },
    property: "webhookName",
    says: /must be a string, got boolean/,
  },
  {
    label: "name as an array",
    news: { ...good, webhookName: ["a"] },
    property: "webhookName",
    says: /got an array/,
  },
  {
    label: "adopt id as a string",
    news: { ...good, adoptWebhookId: "12" },
    property: "adoptWebhookId",
    says: /must be a number/,
  },
  {
    label: "adopt id negative",
    news: { ...good, adoptWebhookId: -3 },
    property: "adoptWebhookId",
    says: /positive whole number/,
  },
  {
    label: "adopt id fractional",
    news: { ...good, adoptWebhookId: 1.5 },
    property: "adoptWebhookId",
    says: /positive whole number/,
  },
  {
    label: "connection base URL relative",
    news: { ...good, connection: { baseUrl: "api.example.com" } },
    property: "connection.baseUrl",
    says: /connection.baseUrl must be an absolute http\(s\) URL/,
  },
  {
    label: "connection with credentials in base URL",
    news: { ...good, connection: { baseUrl: "https://u:p@api.example.com" } },
    property: "connection.baseUrl",
    says: /without credentials/,
  },
  {
    label: "connection empty token",
    news: { ...good, connection: { accessToken: " " } },
    property: "connection.accessToken",
    says: /accessToken is empty/,
  },
  {
    label: "connection unknown field",
    news: { ...good, connection: { token: "x" } },
    property: "connection",
    says: /.+/,
  },
];

describe("check refuses bad input before any API call", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    await provider.configure({
      config: {
        get: (k: string) => ({ "webhooks:baseUrl": emulator.url, "webhooks:accessToken": TOKEN })[k],
        require: () => "",
      },
    });
  });
  afterAll(async () => {
    await emulator.close();
  });

  it(`has at least 20 cases (${BAD_INPUTS.length})`, () => {
    expect(BAD_INPUTS.length).toBeGreaterThanOrEqual(20);
  });

  it.each(BAD_INPUTS)("$label", async ({ news, property, says }) => {
    const result = await provider.check({} as never, news as never);
    const failures = result.failures ?? [];
    const forProperty = failures.filter((f) => f.property === property);
    expect(forProperty.length, JSON.stringify(failures)).toBeGreaterThan(0);
    expect(forProperty.map((f) => f.reason).join(" | ")).toMatch(says);
    expect(emulator.counters().total).toBe(0);
  });

  it("reports every failing property at once", async () => {
    const result = await provider.check(
      {} as never,
      { webhookName: "", webhookUrl: "ftp://x", adoptWebhookId: "a" } as never,
    );
    expect(new Set(result.failures?.map((f) => f.property))).toEqual(
      new Set(["webhookName", "webhookUrl", "adoptWebhookId"]),
    );
  });

  it("lets unknown values through during preview", async () => {
    const result = await provider.check(
      {} as never,
      { webhookName: UNKNOWN, webhookUrl: UNKNOWN, adoptWebhookId: UNKNOWN, connection: UNKNOWN } as never,
    );
    expect(result.failures).toBeUndefined();
    const nested = await provider.check({} as never, {
      ...good,
      connection: { baseUrl: UNKNOWN, accessToken: UNKNOWN },
    });
    expect(nested.failures).toBeUndefined();
  });

  it("accepts good input unchanged", async () => {
    const news = {
      ...good,
      adoptWebhookId: 5,
      connection: { baseUrl: "https://api.example.com", accessToken: "t", allowInsecureHttp: false },
    };
    expect(await provider.check({} as never, news as never)).toEqual({ inputs: news });
    expect(emulator.counters().total).toBe(0);
  });
});
