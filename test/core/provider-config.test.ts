// The native provider's configuration (docs/configuration.md, "Where each setting is read": an
// explicit provider's argument `<setting>`, or the default provider's config `webhooks:<setting>`;
// older engines send the config as variables `webhooks:config:<setting>`), and the words its
// messages use for where a setting is and how to set it.
import { describe, expect, it } from "vitest";
import { nativeConfig } from "../../src/core/provider-config";
import { resolveConnection } from "../../src/core/settings";

const URL = "https://api.example.com";

describe("nativeConfig", () => {
  it("reads a setting under each of the three key forms, and ignores keys that are no setting", () => {
    for (const key of ["baseUrl", "webhooks:baseUrl", "webhooks:config:baseUrl"])
      expect(nativeConfig({ [key]: URL }).values.baseUrl, key).toBe(URL);
    const config = nativeConfig({ "other:baseUrl": URL, version: "1.0.0", "webhooks:config:nothing": "x" });
    expect(config.values).toEqual({});
  });

  it("takes numbers and booleans as the text a setting is read from", () => {
    const { values } = nativeConfig({ maxRetries: 2, allowInsecureHttp: true });
    expect(values).toEqual({ maxRetries: "2", allowInsecureHttp: "true" });
    const resolved = resolveConnection(
      nativeConfig({
        baseUrl: "http://api.example.com",
        accessToken: "tok-0123456789",
        maxRetries: 2,
        allowInsecureHttp: true,
      }),
      undefined,
      {},
    );
    expect(resolved.client).toMatchObject({ maxRetries: 2, allowInsecureHttp: true });
  });

  it("names the provider config and the explicit provider's argument, and sets the token with --secret", () => {
    const message = (() => {
      try {
        resolveConnection(nativeConfig({ baseUrl: URL }), undefined, {});
      } catch (error) {
        return (error as Error).message;
      }
      return "";
    })();
    expect(message).toContain("pulumi config set --secret webhooks:accessToken <token>");
    const config = nativeConfig({});
    expect(config.describe("timeoutMs")).toBe(
      "provider config webhooks:timeoutMs (or an explicit provider's timeoutMs)",
    );
    expect(config.howToSet("baseUrl")).toBe("pulumi config set webhooks:baseUrl <value>");
    expect(config.howToSet("accessToken")).toBe("pulumi config set --secret webhooks:accessToken <value>");
    const wrong = (() => {
      try {
        resolveConnection(
          nativeConfig({ baseUrl: URL, accessToken: "tok-0123456789", timeoutMs: 0 }),
          undefined,
          {},
        );
      } catch (error) {
        return (error as Error).message;
      }
      return "";
    })();
    expect(wrong).toContain(
      "provider config webhooks:timeoutMs (or an explicit provider's timeoutMs) must be",
    );
  });
});
