// Ids are per service (the API document numbers endpoints per service), so an endpoint is its id on
// the service it was made on. When the connection starts to reach another service (a dynamic
// resource's `connection` input, the native provider's configuration), the same id there is another
// endpoint, often another team's with the same name and URL. Nothing of theirs may be taken
// (docs/lifecycle.md, "An endpoint is its id on its service"): preview must say the endpoint is
// replaced, and refresh must never write their creator and signing secret into the stack's state.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ProviderCore } from "../../src/core/provider-core";
import type { WebhookEndpointOutputs } from "../../src/core/state";
import { startEmulator, type Emulator } from "../../src/emulator";

const OURS = "tok_ours_a_7c1e5d2b9f";
const THEIRS = "tok_theirs_b_3a8d6e0c41";
const B_STACK = "tok_ours_b_5e2f9c7a13";
const ENDPOINT = { webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" };

describe("an endpoint is its id on the service it was made on", () => {
  // A fresh service A per case: ours is id 1 there, as theirs is on B.
  let a: Emulator;
  let b: Emulator;
  let theirs: { webhook_id: number; sign_secret: string };

  beforeEach(async () => {
    a = await startEmulator({ accessToken: OURS });
  });
  afterEach(async () => {
    await a.close();
  });
  beforeAll(async () => {
    b = await startEmulator({
      accessToken: B_STACK,
      principals: [{ token: THEIRS, creator: { id: 77, name: "other-team" } }],
    });
    // Another team on B creates exactly our name and URL: id 1 on B, like ours on A.
    const response = await fetch(`${b.url}/open-api/v1/webhooks/create`, {
      method: "POST",
      headers: { Authorization: THEIRS, "Content-Type": "application/json" },
      body: JSON.stringify({ webhook_name: ENDPOINT.webhookName, webhook_url: ENDPOINT.webhookUrl }),
    });
    theirs = ((await response.json()) as { data: { webhook_id: number; sign_secret: string } }).data;
  });
  afterAll(async () => {
    await b?.close();
  });

  function core(face: "dynamic" | "native", baseUrl?: string, accessToken?: string): ProviderCore {
    const provider = new ProviderCore({ face, env: {}, notify: () => {} });
    provider.configure({
      values: baseUrl === undefined ? {} : { baseUrl, accessToken },
      describe: (name) => name,
      howToSet: (name) => name,
    });
    return provider;
  }

  it("dynamic: a connection moved to another service replaces the endpoint (preview says so), never updates it in place", async () => {
    const provider = core("dynamic");
    try {
      const inputs = { ...ENDPOINT, connection: { baseUrl: a.url, accessToken: OURS } };
      const created = await provider.create(inputs, undefined, "shop/dev");
      expect(created.id).toBe(String(theirs.webhook_id));
      const moved = { ...inputs, connection: { baseUrl: b.url, accessToken: B_STACK } };
      const diff = await provider.diff(created.id, created.state, moved);
      expect(diff).toMatchObject({ changes: true, replaces: ["connection"], updates: [] });
      expect(diff.drift).toMatch(/created by creator 77/);
      // A token rotated on the same service is still an update, no replacement.
      const rotated = await provider.diff(created.id, created.state, {
        ...inputs,
        connection: { baseUrl: a.url, accessToken: OURS },
      });
      expect(rotated).toMatchObject({ replaces: [] });
    } finally {
      await provider.close();
    }
  });

  it("native: the provider configured for another service replaces the endpoint; refresh there refuses, taking nothing", async () => {
    const onA = core("native", a.url, OURS);
    const created = await onA.create(ENDPOINT, undefined, "shop/dev");
    await onA.close();
    const onB = core("native", b.url, B_STACK);
    try {
      const diff = await onB.diff(created.id, created.state, ENDPOINT);
      expect(diff).toMatchObject({ changes: true, replaces: ["webhookId"] });
      expect(diff.drift).toMatch(/another endpoint/);
      const read = onB.read(created.id, created.state, undefined, "shop/dev");
      await expect(read).rejects.toThrow(/another endpoint[\s\S]*pulumi up/);
      await expect(read).rejects.not.toThrow(new RegExp(theirs.sign_secret));
    } finally {
      await onB.close();
    }
  });

  it("a state of an earlier release (no provenance): the creator tells them apart, in diff and in refresh", async () => {
    const onA = core("native", a.url, OURS);
    const created = await onA.create(ENDPOINT, undefined, "shop/dev");
    await onA.close();
    const { provenance: _provenance, ...earlier } = created.state;
    const onB = core("native", b.url, B_STACK);
    try {
      const diff = await onB.diff(created.id, earlier, ENDPOINT);
      expect(diff).toMatchObject({ changes: true, replaces: ["webhookId"] });
      expect(diff.drift).toMatch(/creator 77/);
      await expect(onB.read(created.id, earlier, undefined, "shop/dev")).rejects.toThrow(/another endpoint/);
      // On its own service, the same state reads as before.
      const back = core("native", a.url, OURS);
      try {
        const read = await back.read(created.id, earlier, undefined, "shop/dev");
        expect(read?.state.creatorId).toBe(created.state.creatorId);
        expect(await back.diff(created.id, earlier as WebhookEndpointOutputs, ENDPOINT)).toMatchObject({
          changes: false,
        });
      } finally {
        await back.close();
      }
    } finally {
      await onB.close();
    }
  });

  it("the same principal id on both services (ids of principals are per service too): the creation time still tells them apart", async () => {
    const onA = core("native", a.url, OURS);
    const created = await onA.create(ENDPOINT, undefined, "shop/dev");
    // Another service whose principal has our creator id and name; its endpoint 1, same name and URL, made a
    // minute later.
    const same = await startEmulator({
      accessToken: B_STACK,
      creator: { id: created.state.creatorId, name: created.state.creatorName },
      now: () => created.state.createTime + 60_000,
    });
    try {
      same.addRecord({ webhook_name: ENDPOINT.webhookName, webhook_url: ENDPOINT.webhookUrl });
      const onOther = core("native", same.url, B_STACK);
      try {
        expect(await onOther.diff(created.id, created.state, ENDPOINT)).toMatchObject({
          changes: true,
          replaces: ["webhookId"],
        });
        await expect(onOther.read(created.id, created.state, undefined, "shop/dev")).rejects.toThrow(
          /another time/,
        );
      } finally {
        await onOther.close();
      }
    } finally {
      await Promise.all([onA.close(), same.close()]);
    }
  });

  it("a state that records the creation time but not the creator: the time alone tells them apart, and the reason says so", async () => {
    const onA = core("native", a.url, OURS);
    const created = await onA.create(ENDPOINT, undefined, "shop/dev");
    await onA.close();
    const { creatorId: _creator, ...withoutCreator } = created.state;
    const onB = core("native", b.url, B_STACK);
    try {
      const diff = await onB.diff(created.id, withoutCreator as WebhookEndpointOutputs, ENDPOINT);
      expect(diff).toMatchObject({ changes: true, replaces: ["webhookId"], updates: [] });
      expect(diff.drift).toMatch(/was created at another time than the stack's endpoint 1/);
      expect(diff.drift).not.toMatch(/undefined/);
      // What else changed is still said (here adoptWebhookId added for the id held): only a changed
      // connection turns into the replacement.
      const adopting = await onB.diff(created.id, withoutCreator as WebhookEndpointOutputs, {
        ...ENDPOINT,
        adoptWebhookId: Number(created.id),
      });
      expect(adopting).toMatchObject({ replaces: ["webhookId"], updates: ["adoptWebhookId"] });
    } finally {
      await onB.close();
    }
  });

  it("the same service at a new address (persisted, restarted on another port): nothing changes, refresh reads it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "service-identity-"));
    const persistPath = join(dir, "records.json");
    try {
      const first = await startEmulator({ accessToken: OURS, persistPath });
      const onFirst = core("native", first.url, OURS);
      const created = await onFirst.create(ENDPOINT, undefined, "shop/dev");
      await onFirst.close();
      await first.close();
      const again = await startEmulator({ accessToken: OURS, persistPath });
      const onAgain = core("native", again.url, OURS);
      try {
        expect(again.url).not.toBe(first.url);
        expect(await onAgain.diff(created.id, created.state, ENDPOINT)).toMatchObject({
          changes: false,
          replaces: [],
        });
        expect((await onAgain.read(created.id, created.state, undefined, "shop/dev"))?.state.signSecret).toBe(
          created.state.signSecret,
        );
      } finally {
        await onAgain.close();
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
