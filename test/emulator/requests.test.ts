import { describe, expect, it } from "vitest";
import { CREATE, LIST, TOKEN, admin, call, create, emulators, hook, list } from "./helpers";

const start = emulators();

describe("authorization", () => {
  it("accepts the raw token and the Bearer form", async () => {
    const emulator = await start();
    expect((await list(emulator, {}, { authorization: TOKEN })).json.code).toBe("200");
    expect((await list(emulator, {}, { authorization: `Bearer ${TOKEN}` })).json.code).toBe("200");
  });

  it.each([
    ["missing", null],
    ["wrong", "nope"],
    ["wrong bearer", "Bearer nope"],
    ["token with a suffix", `${TOKEN}x`],
  ])("refuses a %s token with 401 / 40101 without echoing it", async (_label, authorization) => {
    const emulator = await start();
    const reply = await create(emulator, hook(1), { authorization });
    expect(reply.status).toBe(401);
    expect(reply.json).toMatchObject({ code: "40101", msg: "invalid or missing access token", data: null });
    if (authorization !== null) expect(reply.text).not.toContain(authorization);
    expect(emulator.records()).toEqual([]);
  });

  it("never stores the token in the request log", async () => {
    const emulator = await start();
    await create(emulator, hook(1));
    await list(emulator, {}, { authorization: `Bearer ${TOKEN}` });
    await list(emulator, {}, { authorization: null });
    await list(emulator, {}, { authorization: "a-wrong-secret" });
    const log = emulator.requests();
    expect(log.map((entry) => entry.authorization)).toEqual([
      "<redacted>",
      "<redacted>",
      "<missing>",
      "<redacted>",
    ]);
    const served = (await admin(emulator, "requests")).text;
    for (const text of [JSON.stringify(log), served, JSON.stringify(emulator.options())]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain("a-wrong-secret");
    }
  });
});

describe("transport errors", () => {
  it("answers 404 for unknown paths and 405 for other methods, even with errors-in-200", async () => {
    const emulator = await start({ errorStyle: "envelope-200" });
    const missing = await call(emulator.url, "/open-api/v1/nothing", {});
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ code: "40401", data: null });
    const wrongMethod = await call(emulator.url, LIST, undefined, { method: "GET" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect(emulator.counters()).toMatchObject({ other: 2, list: 0, total: 2 });
  });

  it("requires Content-Type application/json (415), parameters allowed", async () => {
    const emulator = await start();
    expect((await create(emulator, hook(1), { contentType: null })).status).toBe(415);
    const plain = await create(emulator, hook(1), { contentType: "text/plain" });
    expect(plain.json).toMatchObject({ code: "41501", msg: "Content-Type must be application/json" });
    expect((await create(emulator, hook(1), { contentType: "Application/JSON; charset=utf-8" })).status).toBe(
      200,
    );
    expect(emulator.records()).toHaveLength(1);
  });

  it("refuses bodies above maxBodyBytes with 413", async () => {
    const emulator = await start({ maxBodyBytes: 1000 });
    const reply = await create(emulator, { ...hook(1), padding: "x".repeat(2000) });
    expect(reply.status).toBe(413);
    expect(reply.json).toMatchObject({ code: "41301" });
    expect((await create(emulator, hook(1))).status).toBe(200);
  });
});

describe("body validation", () => {
  const longName = "n".repeat(129);
  const cases: [string, string, unknown, RegExp | string][] = [
    ["invalid JSON", CREATE, "{nope", "request body must be valid JSON"],
    ["an array body", CREATE, [], "request body must be a JSON object"],
    ["a null body", LIST, null, "request body must be a JSON object"],
    ["a missing name", CREATE, { webhook_url: "https://a.example" }, "webhook_name is required"],
    ["a numeric url", CREATE, { webhook_name: "a", webhook_url: 5 }, "webhook_url must be a string"],
    [
      "a blank name",
      CREATE,
      { webhook_name: "   ", webhook_url: "https://a.example" },
      "webhook_name must not be empty",
    ],
    [
      "a long name",
      CREATE,
      { webhook_name: longName, webhook_url: "https://a.example" },
      "webhook_name must be at most 128 characters",
    ],
    [
      "an ftp url",
      CREATE,
      { webhook_name: "a", webhook_url: "ftp://a.example/x" },
      "webhook_url must be an absolute http(s) URL",
    ],
    [
      "a relative url",
      CREATE,
      { webhook_name: "a", webhook_url: "/hooks/1" },
      "webhook_url must be an absolute http(s) URL",
    ],
    [
      "a padded url",
      CREATE,
      { webhook_name: "a", webhook_url: " https://a.example" },
      "webhook_url must be an absolute http(s) URL",
    ],
    [
      "a long url",
      CREATE,
      { webhook_name: "a", webhook_url: `https://a.example/${"p".repeat(2048)}` },
      "webhook_url must be at most 2048 characters",
    ],
    ["a string limit", LIST, { limit: "10" }, "limit must be a non-negative integer"],
    ["a negative limit", LIST, { limit: -1 }, "limit must be a non-negative integer"],
    ["a numeric cursor", LIST, { cursor: 5 }, "cursor must be a string"],
    ["a numeric name filter", LIST, { webhook_name: 1 }, "webhook_name must be a string"],
    ["a forged cursor", LIST, { cursor: "12" }, "cursor is invalid"],
  ];

  it.each(cases)("refuses %s with 400 / 40001 naming the problem", async (_label, path, body, msg) => {
    const emulator = await start();
    const raw = typeof body === "string" ? body : JSON.stringify(body);
    const reply = await call(emulator.url, path, undefined, { raw });
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ code: "40001", msg, data: null });
  });

  it("changes nothing on bad requests", async () => {
    const emulator = await start({ uniqueNames: true });
    const kept = emulator.addRecord(hook(1));
    for (const [, path, body] of cases) {
      await call(emulator.url, path, undefined, {
        raw: typeof body === "string" ? body : JSON.stringify(body),
      });
    }
    await create(emulator, hook(1));
    await create(emulator, hook(2), { authorization: null });
    await create(emulator, hook(2), { contentType: "text/plain" });
    expect(emulator.records()).toEqual([kept]);
    expect(emulator.counters().created).toBe(0);
    // The id sequence did not move either.
    expect((await create(emulator, hook(3))).json.data.webhook_id).toBe(2);
  });

  it("accepts extra fields and stores the name untrimmed", async () => {
    const emulator = await start();
    const reply = await create(emulator, {
      webhook_name: " spaced ",
      webhook_url: "http://localhost:8080/x",
      extra: true,
    });
    expect(reply.json.data).toMatchObject({
      webhook_name: " spaced ",
      webhook_url: "http://localhost:8080/x",
    });
  });
});

describe("name uniqueness", () => {
  it("allows duplicate names by default", async () => {
    const emulator = await start();
    await create(emulator, hook(1));
    expect((await create(emulator, hook(1))).json.code).toBe("200");
    expect(emulator.records()).toHaveLength(2);
  });

  it("refuses a duplicate name with 409 / 40009 when uniqueNames is on", async () => {
    const emulator = await start({ profile: "unique-names" });
    await create(emulator, hook(1));
    const reply = await create(emulator, { ...hook(1), webhook_url: "https://other.example" });
    expect(reply.status).toBe(409);
    expect(reply.json).toMatchObject({ code: "40009", msg: "webhook name already exists", data: null });
    expect(emulator.records()).toHaveLength(1);
  });

  it("takenName existing: a create of a taken name answers 200 with the endpoint that has it, whoever made it, and creates nothing", async () => {
    const emulator = await start({
      uniqueNames: true,
      takenName: "existing",
      principals: [{ token: "other-team-token-0123", creator: { id: 200, name: "other" } }],
    });
    const theirs = await create(emulator, hook(1), { authorization: "other-team-token-0123" });
    const reply = await create(emulator, hook(1));
    expect(reply.status).toBe(200);
    expect(reply.json.code).toBe("200");
    expect(reply.json.data).toEqual(theirs.json.data);
    expect((reply.json.data as { creator_id: number }).creator_id).toBe(200);
    expect(emulator.records()).toHaveLength(1);
  });
});

describe("error styles", () => {
  it("reports errors inside HTTP 200 with errorStyle envelope-200", async () => {
    const emulator = await start({ errorStyle: "envelope-200", uniqueNames: true });
    await create(emulator, hook(1));
    const replies = {
      auth: await list(emulator, {}, { authorization: null }),
      invalid: await create(emulator, { webhook_name: "x" }),
      duplicate: await create(emulator, hook(1)),
      media: await list(emulator, {}, { contentType: "text/plain" }),
    };
    expect(Object.values(replies).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(Object.values(replies).map((r) => r.json.code as string)).toEqual([
      "40101",
      "40001",
      "40009",
      "41501",
    ]);
    for (const reply of Object.values(replies)) expect(reply.json.data).toBeNull();
  });

  it("uses HTTP statuses with errorStyle http", async () => {
    const emulator = await start({ errorStyle: "http" });
    expect((await list(emulator, {}, { authorization: null })).status).toBe(401);
    expect((await create(emulator, { webhook_name: "x" })).status).toBe(400);
  });
});
