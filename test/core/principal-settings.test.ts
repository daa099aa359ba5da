// Which principalId speaks for which token: a principalId names the creator of the
// endpoints made with the token of its own configuration. The environment's WEBHOOKS_PRINCIPAL_ID
// was applied to an explicit provider's own token and to the stack config's token (an outside team
// found a create of the provider's own token refused after it was made). docs/configuration.md
// states the rule as a table; the settings module holds it as PRINCIPAL_FOR_TOKEN: both are held
// to each other, and the expectations below are the table's.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  PRINCIPAL_FOR_TOKEN,
  resolveConnection,
  stackConfig,
  type SettingPlace,
} from "../../src/core/settings";
import { nativeConfig } from "../../src/core/provider-config";

const BASE = "https://api.example.com";
const CONFIG_TOKEN = "tok_config_7a1c";
const ENV_TOKEN = "tok_env_93be";
const OWN_TOKEN = "tok_resource_c0d4";

/** The rows of docs/configuration.md's table: place of the token → places whose principalId speaks for it. */
function documentedRule(): Map<string, string[]> {
  const page = readFileSync(join(__dirname, "..", "..", "docs", "configuration.md"), "utf8");
  const section = page.slice(page.indexOf("### Which principalId speaks for which token"));
  const rows = new Map<string, string[]>();
  for (const line of section.split("\n").slice(0, 30)) {
    const cells = line.split("|").slice(1, -1);
    const place = /^\s*`(\w+)`:/.exec(cells[0] ?? "")?.[1];
    if (place === undefined) continue;
    const spoken = cells[1]!.trim();
    rows.set(place, spoken === "none" ? [] : [...spoken.matchAll(/`(\w+)`/g)].map((m) => m[1]!));
  }
  return rows;
}

describe("which principalId speaks for which token", () => {
  it("docs/configuration.md's table is PRINCIPAL_FOR_TOKEN, row for row", () => {
    const documented = documentedRule();
    expect([...documented.keys()].sort()).toEqual(Object.keys(PRINCIPAL_FOR_TOKEN).sort());
    for (const [place, spoken] of documented)
      expect(spoken, place).toEqual([...PRINCIPAL_FOR_TOKEN[place as SettingPlace]]);
  });

  /**
   * The claim resolved for a token from `tokenFrom`, with principalId 11 in the configuration and 22 in the
   * environment as given.
   */
  function claim(
    tokenFrom: SettingPlace,
    principals: { config?: string; env?: string },
    configOf: (values: Record<string, string>) => ReturnType<typeof stackConfig> = (values) =>
      stackConfig((key) => values[key]),
  ) {
    const values: Record<string, string> = { "webhooks:baseUrl": BASE };
    if (tokenFrom === "config") values["webhooks:accessToken"] = CONFIG_TOKEN;
    if (principals.config !== undefined) values["webhooks:principalId"] = principals.config;
    const env: NodeJS.ProcessEnv = {};
    if (tokenFrom === "environment" || tokenFrom === "resource") env.WEBHOOKS_ACCESS_TOKEN = ENV_TOKEN;
    if (principals.env !== undefined) env.WEBHOOKS_PRINCIPAL_ID = principals.env;
    const resource = tokenFrom === "resource" ? { accessToken: OWN_TOKEN } : undefined;
    const connection = resolveConnection(configOf(values), resource, env, "the resource's connection");
    return connection.principal === undefined
      ? undefined
      : { id: connection.principal.id, source: connection.principal.source };
  }

  it("a resource's own token: none speaks for it", () => {
    expect(claim("resource", { config: "11", env: "22" })).toBeUndefined();
    expect(claim("resource", { env: "22" })).toBeUndefined();
  });

  it("the configuration's token: its own principalId only, never WEBHOOKS_PRINCIPAL_ID", () => {
    expect(claim("config", { config: "11", env: "22" })).toEqual({
      id: 11,
      source: "stack config webhooks:principalId",
    });
    expect(claim("config", { env: "22" })).toBeUndefined();
  });

  it("the environment's token: the configuration's principalId, else WEBHOOKS_PRINCIPAL_ID", () => {
    expect(claim("environment", { config: "11", env: "22" })).toEqual({
      id: 11,
      source: "stack config webhooks:principalId",
    });
    expect(claim("environment", { env: "22" })).toEqual({
      id: 22,
      source: "environment variable WEBHOOKS_PRINCIPAL_ID",
    });
    expect(claim("environment", {})).toBeUndefined();
  });

  it("an explicit native provider's own token takes its own principalId, not the environment's", () => {
    const explicit = (values: Record<string, string>) =>
      nativeConfig(
        Object.fromEntries(Object.entries(values).map(([key, value]) => [key.split(":")[1]!, value])),
      );
    expect(claim("config", { env: "22" }, explicit)).toBeUndefined();
    expect(claim("config", { config: "11", env: "22" }, explicit)?.id).toBe(11);
    // Its principalId also speaks for the environment's token, when it takes that one.
    expect(claim("environment", { config: "11", env: "22" }, explicit)?.id).toBe(11);
  });

  it("a principalId that speaks for the token is validated; one that does not is not read", () => {
    expect(() => claim("config", { config: "eleven" })).toThrow(
      /stack config webhooks:principalId must be a whole number of creator id/,
    );
    expect(() => claim("environment", { env: "-1" })).toThrow(
      /environment variable WEBHOOKS_PRINCIPAL_ID must be/,
    );
    expect(claim("config", { env: "not a number" })).toBeUndefined();
  });
});
