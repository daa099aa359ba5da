// The settings table (src/core/settings-table.ts) is the home of each provider setting's range; the
// settings marked `tuning` are the client's options of the same name, and the client checks its
// options' ranges itself (src/client/options.ts). Two copies of one range: held equal here, by the
// client's own answers at each bound, and each tuning setting set in the environment reaches the
// client's options unchanged.
import { describe, expect, it } from "vitest";
import { clientSettings } from "../../src/client/options";
import { EMPTY_CONFIG, resolveConnection } from "../../src/core/settings";
import { SETTINGS, SETTING_NAMES, TUNING_SETTINGS } from "../../src/core/settings-table";

const BASE = { baseUrl: "https://api.example.com", accessToken: "token-0123456789" };

describe("the tuning settings and the client's options", () => {
  it("are the settings the table marks tuning, and include every numeric setting but principalId", () => {
    // principalId is the provider's claim about the token, not a client option.
    const numeric = SETTING_NAMES.filter(
      (name) => SETTINGS[name].kind === "number" && name !== "principalId",
    );
    expect([...TUNING_SETTINGS].sort()).toEqual([...numeric, "ascending"].sort());
  });

  it.each(TUNING_SETTINGS.filter((name) => SETTINGS[name].kind === "number"))(
    "%s: the client accepts the table's bounds and refuses just past them",
    (name) => {
      const setting = SETTINGS[name] as { min: number; max: number };
      const at = (value: number) => () => clientSettings({ ...BASE, [name]: value });
      expect(at(setting.min)).not.toThrow();
      expect(at(setting.max)).not.toThrow();
      expect(at(setting.min - 1)).toThrow(new RegExp(name));
      expect(at(setting.max + 1)).toThrow(new RegExp(name));
    },
  );

  it.each(TUNING_SETTINGS)("%s set in the environment reaches the client's options as it is", (name) => {
    const setting = SETTINGS[name];
    const value = setting.kind === "number" ? (setting as { min: number }).min + 1 : "asc";
    const env = {
      WEBHOOKS_BASE_URL: BASE.baseUrl,
      WEBHOOKS_ACCESS_TOKEN: BASE.accessToken,
      [setting.env]: String(value),
    };
    const { client } = resolveConnection(EMPTY_CONFIG, undefined, env);
    expect((client as unknown as Record<string, unknown>)[name]).toEqual(value);
  });
});
