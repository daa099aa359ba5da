// A service that stores a normalised form of what it is given, and several principals creating
// endpoints: what is stored, what each filter finds, whose name is on each record.
import { describe, expect, it } from "vitest";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../src/emulator/index";
import { TOKEN, admin, create, emulators, idsOf, list } from "./helpers";

const start = emulators();

async function found(emulator: Emulator, filter: Record<string, string>): Promise<number[]> {
  const reply = await list(emulator, filter);
  expect(reply.json.code).toBe("200");
  return idsOf(reply.json.data.data);
}

describe("rewrite profiles", () => {
  it("rewriting: trims names and stores URLs in WHATWG form; filters are rewritten before comparing", async () => {
    const emulator = await start({ profile: "rewriting" });
    const made = await create(emulator, { webhook_name: "  Orders  ", webhook_url: "HTTPS://Example.COM" });
    expect(made.json.data).toMatchObject({
      webhook_id: 1,
      webhook_name: "Orders",
      webhook_url: "https://example.com/",
    });
    expect(emulator.records()[0]).toMatchObject({
      webhook_name: "Orders",
      webhook_url: "https://example.com/",
    });
    await create(emulator, { webhook_name: "orders", webhook_url: "https://example.com/Hooks/A" });
    expect(emulator.records()[1]).toMatchObject({
      webhook_name: "orders",
      webhook_url: "https://example.com/Hooks/A",
    });

    expect(await found(emulator, { webhook_name: "Orders" })).toEqual([1]);
    expect(await found(emulator, { webhook_name: " Orders\t" })).toEqual([1]);
    expect(await found(emulator, { webhook_name: "orders" })).toEqual([2]);
    expect(await found(emulator, { webhook_url: "https://example.com/" })).toEqual([1]);
    expect(await found(emulator, { webhook_url: "HTTPS://EXAMPLE.com" })).toEqual([1]);
    // The path keeps its case under href.
    expect(await found(emulator, { webhook_url: "https://example.com/hooks/a" })).toEqual([]);
    expect(await found(emulator, { webhook_url: "https://EXAMPLE.com/Hooks/A" })).toEqual([2]);
  });

  it("rewriting-lowercase: folds names and URLs to lower case, filters too", async () => {
    const emulator = await start({ profile: "rewriting-lowercase" });
    const made = await create(emulator, {
      webhook_name: "Orders-EU",
      webhook_url: "https://Example.com/Hooks/A",
    });
    expect(made.json.data).toMatchObject({
      webhook_name: "orders-eu",
      webhook_url: "https://example.com/hooks/a",
    });
    expect(await found(emulator, { webhook_name: "ORDERS-EU" })).toEqual([1]);
    expect(await found(emulator, { webhook_url: "HTTPS://EXAMPLE.COM/HOOKS/A" })).toEqual([1]);
    expect(await found(emulator, { webhook_name: "orders" })).toEqual([]);
  });

  it("partial filters are rewritten too, and uniqueNames compares stored names", async () => {
    const emulator = await start({
      profile: "rewriting-lowercase",
      filterMatch: "partial",
      uniqueNames: true,
    });
    await create(emulator, { webhook_name: "Orders", webhook_url: "https://a.example/x" });
    expect(await found(emulator, { webhook_name: "ORD" })).toEqual([1]);
    expect(await found(emulator, { webhook_url: "A.EXAMPLE" })).toEqual([1]);
    const clash = await create(emulator, { webhook_name: "ORDERS", webhook_url: "https://b.example/y" });
    expect(clash.json).toMatchObject({ code: "40009" });
    expect(emulator.records()).toHaveLength(1);
  });

  it.each<[NonNullable<EmulatorOptions["rewrite"]>, string, string, string]>([
    [{ url: "strip-trailing-slash" }, "https://a.example/x//", "https://a.example/x", "https://a.example/x/"],
    [{ url: "add-trailing-slash" }, "https://a.example/x", "https://a.example/x/", "https://a.example/x"],
    [{ url: "add-trailing-slash" }, "https://a.example/x/", "https://a.example/x/", "https://a.example/x/"],
    [{ url: "href" }, "http://A.example:80", "http://a.example/", "http://a.example"],
    [{ url: "lowercase" }, "https://A.example/P?Q=1", "https://a.example/p?q=1", "HTTPS://A.EXAMPLE/P?Q=1"],
    [{ name: "trim" }, "https://a.example/Same", "https://a.example/Same", "https://a.example/Same"],
  ])("rewrite %j stores %s as %s and finds it by %s", async (rewrite, given, stored, filter) => {
    const emulator = await start({ rewrite });
    expect((await create(emulator, { webhook_name: " n ", webhook_url: given })).json.data.webhook_url).toBe(
      stored,
    );
    expect(await found(emulator, { webhook_url: filter })).toEqual([1]);
    expect(await found(emulator, { webhook_url: stored })).toEqual([1]);
    expect(emulator.records()[0]!.webhook_name).toBe(rewrite.name === "trim" ? "n" : " n ");
  });

  it("applies to addRecord and service-side updates, and can be switched at run time", async () => {
    const emulator = await start({ rewrite: { name: "lowercase", url: "href" } });
    expect(emulator.addRecord({ webhook_name: "Added", webhook_url: "HTTP://X.example" })).toMatchObject({
      webhook_name: "added",
      webhook_url: "http://x.example/",
    });
    expect(
      emulator.updateRecord(1, { webhook_name: "Renamed", webhook_url: "HTTP://Y.example" }),
    ).toMatchObject({ webhook_name: "renamed", webhook_url: "http://y.example/" });
    expect((await admin(emulator, "config", "POST", { rewrite: { name: "none" } })).json.rewrite).toEqual({
      name: "none",
      url: "none",
    });
    expect(emulator.addRecord({ webhook_name: "Kept", webhook_url: "HTTP://Z.example" })).toMatchObject({
      webhook_name: "Kept",
      webhook_url: "HTTP://Z.example",
    });
  });

  it("refuses unknown rewrite modes naming the option", async () => {
    await expect(startEmulator({ rewrite: { url: "upper" as "href" } })).rejects.toThrow(
      /options\.rewrite\.url must be one of "none", "href"/,
    );
    await expect(startEmulator({ rewrite: { path: "none" } as object })).rejects.toThrow(
      /options\.rewrite\.path is not/,
    );
  });
});

describe("principals", () => {
  const principals = [
    { token: "team-b-token-5d1f", creator: { id: 2002, name: "team-b" } },
    { token: "ci-bot-token-77aa", creator: { id: 3003, name: "ci-bot" } },
  ];

  it("accepts each principal's token like the access token, and stamps its creator", async () => {
    const emulator = await start({ principals });
    const mine = (await create(emulator, { webhook_name: "a", webhook_url: "https://a.example" })).json.data;
    const teamB = (
      await create(
        emulator,
        { webhook_name: "b", webhook_url: "https://b.example" },
        { authorization: "team-b-token-5d1f" },
      )
    ).json.data;
    const bot = (
      await create(
        emulator,
        { webhook_name: "c", webhook_url: "https://c.example" },
        { authorization: "Bearer ci-bot-token-77aa" },
      )
    ).json.data;
    expect(mine).toMatchObject({
      creator_id: 1001,
      creator_name: "open-api",
      operator_id: 1001,
      operator_name: "open-api",
    });
    expect(teamB).toMatchObject({
      creator_id: 2002,
      creator_name: "team-b",
      operator_id: 2002,
      operator_name: "team-b",
    });
    expect(bot).toMatchObject({
      creator_id: 3003,
      creator_name: "ci-bot",
      operator_id: 3003,
      operator_name: "ci-bot",
    });
    // Everyone sees every record: the principals are other actors on one service.
    const listed = await list(emulator, {}, { authorization: "team-b-token-5d1f" });
    expect(idsOf(listed.json.data.data)).toEqual([1, 2, 3]);
    expect(
      (
        await create(
          emulator,
          { webhook_name: "d", webhook_url: "https://d.example" },
          { authorization: "team-b-token" },
        )
      ).status,
    ).toBe(401);
  });

  it("keeps principal tokens out of options, and out of the admin routes", async () => {
    const emulator = await start({ principals });
    const served = (await admin(emulator, "config")).text;
    expect(emulator.options().principals).toEqual([
      { token: "<redacted>", creator: { id: 2002, name: "team-b" } },
      { token: "<redacted>", creator: { id: 3003, name: "ci-bot" } },
    ]);
    expect(served + JSON.stringify(emulator.options())).not.toMatch(/team-b-token|ci-bot-token/);
    expect(
      (await admin(emulator, "records", "GET", undefined, { authorization: "team-b-token-5d1f" })).status,
    ).toBe(401);
  });

  it("refuses a principal token that repeats another token", async () => {
    await expect(
      startEmulator({ accessToken: TOKEN, principals: [{ token: TOKEN, creator: { id: 1, name: "x" } }] }),
    ).rejects.toThrow(/options\.principals\[0\]\.token must differ/);
    await expect(startEmulator({ principals: [principals[0]!, principals[0]!] })).rejects.toThrow(
      /principals\[1\]\.token must differ/,
    );
    await expect(
      startEmulator({ principals: [{ token: "", creator: { id: 1, name: "x" } }] }),
    ).rejects.toThrow(/options\.principals\[0\]\.token must be a non-empty string/);
  });
});
