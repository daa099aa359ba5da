import http from "node:http";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EMULATOR_PROFILES, startEmulator } from "../../src/emulator/index";
import { LIST, TOKEN, admin, create, emulators, hook, list } from "./helpers";
import { waitUntil } from "../support/helpers";

const start = emulators();

describe("admin routes over HTTP (with the admin token)", () => {
  it("adds, lists, patches and deletes records", async () => {
    let clock = 1_000;
    const emulator = await start({ now: () => (clock += 10) });
    const added = await admin(emulator, "records", "POST", hook(1));
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({ webhook_id: 1, ...hook(1) });
    expect((await admin(emulator, "records")).json).toEqual([added.json]);

    const patched = await admin(emulator, "records/1", "PATCH", {
      webhook_url: "https://moved.example/x",
      operator_name: "console-user",
    });
    expect(patched.json).toMatchObject({
      webhook_url: "https://moved.example/x",
      operator_name: "console-user",
      create_time: added.json.create_time,
    });
    expect(patched.json.operate_time).toBeGreaterThan(added.json.create_time);
    expect((await admin(emulator, "records/1", "PATCH", { webhook_url: "nope" })).status).toBe(400);
    expect((await admin(emulator, "records/1", "PATCH", { webhook_id: 9 })).status).toBe(400);

    expect((await admin(emulator, "records/1", "DELETE")).json).toEqual({ removed: 1 });
    expect((await admin(emulator, "records/1", "DELETE")).status).toBe(404);
    expect((await admin(emulator, "records/1", "PATCH", { webhook_name: "x" })).status).toBe(404);
    expect(emulator.records()).toEqual([]);
    expect(
      (await admin(emulator, "records", "POST", { webhook_name: "", webhook_url: "https://a.example" }))
        .status,
    ).toBe(400);
  });

  it("serves the request log and counters, leaving admin calls out of both", async () => {
    const emulator = await start();
    await create(emulator, hook(1));
    await list(emulator, { limit: 5 });
    await list(emulator, {}, { authorization: null });
    const log = (await admin(emulator, "requests")).json;
    expect(log).toHaveLength(3);
    expect(log[0]).toMatchObject({
      seq: 1,
      route: "create",
      status: 200,
      body: hook(1),
      authorization: "<redacted>",
    });
    expect(log[1]).toMatchObject({ seq: 2, route: "list", status: 200, body: { limit: 5 } });
    expect(log[2]).toMatchObject({ seq: 3, status: 401, authorization: "<missing>" });
    expect((await admin(emulator, "counters")).json).toMatchObject({
      list: 2,
      create: 1,
      other: 0,
      total: 3,
      created: 1,
    });
  });

  it("configures, injects and resets", async () => {
    const emulator = await start();
    const configured = await admin(emulator, "config", "POST", {
      paging: "has-more",
      profile: "small-pages",
    });
    expect(configured.json).toMatchObject({
      paging: "has-more",
      defaultPageSize: 5,
      accessToken: "<redacted>",
    });
    expect((await admin(emulator, "config", "POST", { pagin: "none" })).status).toBe(400);
    expect((await admin(emulator, "config", "POST", { port: 1 })).json.error).toMatch(/port cannot change/);
    expect((await admin(emulator, "config")).json.paging).toBe("has-more");

    expect(
      (await admin(emulator, "inject", "POST", { route: "create", kind: "server-error", count: 1 })).status,
    ).toBe(200);
    expect((await admin(emulator, "inject", "POST", { route: "create", kind: "gremlins" })).status).toBe(400);
    expect((await create(emulator, hook(1))).status).toBe(500);
    await create(emulator, hook(2));
    expect(emulator.records()).toHaveLength(1);

    expect((await admin(emulator, "reset", "POST")).json).toEqual({ ok: true });
    expect(emulator.records()).toEqual([]);
    expect(emulator.requests()).toEqual([]);
    expect(emulator.counters()).toMatchObject({ total: 0, created: 0, faults: { "server-error": 0 } });
    expect(emulator.options().paging).toBe("has-more");
    // Ids are never reused, as on the real service.
    expect((await create(emulator, hook(3))).json.data.webhook_id).toBe(2);
  });

  it("answers 404 and 405 for unknown admin routes and methods", async () => {
    const emulator = await start();
    expect((await admin(emulator, "nothing")).status).toBe(404);
    expect((await admin(emulator, "reset", "GET")).status).toBe(405);
    expect((await admin(emulator, "health")).json).toEqual({ ok: true });
  });
});

describe("in-process introspection", () => {
  it("mirrors the admin routes", async () => {
    const emulator = await start({ uniqueNames: true });
    const record = emulator.addRecord(hook(1));
    emulator.addRecord(hook(2));
    expect(() => emulator.addRecord(hook(1))).toThrow("webhook name already exists");
    expect(() => emulator.updateRecord(2, { webhook_name: "hook-1" })).toThrow("webhook name already exists");
    expect(() => emulator.addRecord({ webhook_name: "x", webhook_url: "mailto:a@b" })).toThrow(
      /absolute http\(s\) URL/,
    );
    expect(emulator.updateRecord(1, { webhook_name: "renamed" })).toMatchObject({
      webhook_id: 1,
      webhook_name: "renamed",
      sign_secret: record.sign_secret,
    });
    expect(emulator.updateRecord(99, { webhook_name: "x" })).toBeUndefined();
    expect(emulator.removeRecord(2)).toBe(true);
    expect(emulator.removeRecord(2)).toBe(false);
    expect(emulator.records().map((r) => r.webhook_name)).toEqual(["renamed"]);
    expect(emulator.counters().created).toBe(0);
    expect(() => emulator.configure({ host: "0.0.0.0" })).toThrow(/host cannot change/);
    expect(() => emulator.injectNext("delete" as "list", "latency")).toThrow(/route/);
  });

  it("hands out copies, not the emulator's own state", async () => {
    const emulator = await start();
    emulator.addRecord(hook(1));
    emulator.records()[0]!.webhook_name = "mutated";
    emulator.options().requiredListFields.push("cursor");
    expect(emulator.records()[0]!.webhook_name).toBe("hook-1");
    expect(emulator.options().requiredListFields).toEqual([]);
  });

  it("keeps at most requestLogLimit entries", async () => {
    const emulator = await start({ requestLogLimit: 2 });
    for (let i = 0; i < 4; i += 1) await list(emulator);
    expect(emulator.requests().map((e) => e.seq)).toEqual([3, 4]);
    expect(emulator.counters().list).toBe(4);
  });

  it("starts with every built-in profile", async () => {
    for (const profile of Object.keys(EMULATOR_PROFILES)) {
      const emulator = await start({ profile });
      expect(
        (await list(emulator, { cursor: "", limit: 5, webhook_name: "", webhook_url: "", ascending: "true" }))
          .json.code,
      ).toMatch(/^\d+$/);
    }
  });
});

describe("persistence", () => {
  const dir = mkdtempSync(join(tmpdir(), "webhooks-emulator-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps records and the id sequence across a restart", async () => {
    const persistPath = join(dir, "nested", "state.json");
    const first = await startEmulator({ accessToken: TOKEN, persistPath });
    await create(first, hook(1));
    await create(first, hook(2));
    first.removeRecord(1);
    const before = first.records();
    await first.close();

    expect(JSON.parse(readFileSync(persistPath, "utf8"))).toMatchObject({ version: 1, next_id: 3 });
    expect(readdirSync(join(dir, "nested"))).toEqual(["state.json"]);

    const second = await start({ persistPath });
    expect(second.records()).toEqual(before);
    expect((await create(second, hook(3))).json.data.webhook_id).toBe(3);
    second.updateRecord(2, { webhook_name: "changed" });
    const third = await start({ persistPath });
    expect(third.records().map((r) => [r.webhook_id, r.webhook_name])).toEqual([
      [2, "changed"],
      [3, "hook-3"],
    ]);
  });

  it("refuses a state file it cannot read instead of overwriting it", async () => {
    const persistPath = join(dir, "broken.json");
    writeFileSync(persistPath, "{not json");
    await expect(startEmulator({ persistPath })).rejects.toThrow(/not usable/);
    expect(readFileSync(persistPath, "utf8")).toBe("{not json");
  });

  it("undoes a change it could not write, and says so with a 500", async () => {
    const stateDir = join(dir, "vanishing");
    const emulator = await start({ persistPath: join(stateDir, "state.json") });
    await create(emulator, hook(1));
    // A file where the directory was makes every later write fail.
    rmSync(stateDir, { recursive: true });
    writeFileSync(stateDir, "");
    const reply = await create(emulator, hook(2));
    expect(reply.status).toBe(500);
    expect(emulator.records().map((r) => r.webhook_id)).toEqual([1]);
    expect(() => emulator.removeRecord(1)).toThrow();
    expect(emulator.records()).toHaveLength(1);
    rmSync(stateDir);
    expect((await create(emulator, hook(3))).json.data.webhook_id).toBe(2);
  });

  it("starts empty when the file does not exist yet", async () => {
    const persistPath = join(dir, "fresh.json");
    const emulator = await start({ persistPath });
    expect(emulator.records()).toEqual([]);
    expect(existsSync(persistPath)).toBe(false);
  });
});

describe("close", () => {
  it("closes promptly with idle keep-alive connections and requests in flight", async () => {
    const emulator = await startEmulator({
      accessToken: TOKEN,
      faults: { list: { rate: 0, slowMs: 60_000 } },
    });
    const agent = new http.Agent({ keepAlive: true });
    const post = () =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          emulator.url + LIST,
          { method: "POST", agent, headers: { authorization: TOKEN, "content-type": "application/json" } },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", reject);
        req.end("{}");
      });
    expect(await post()).toBe(200);
    emulator.injectNext("list", "latency");
    const hanging = post().catch((error: unknown) => error);
    await waitUntil("the second request is held for its latency", () =>
      emulator.requests().some((r) => r.fault === "latency" && r.body !== null),
    );
    // Promptly: well within the 60 s the request is held for, however busy the machine.
    const began = performance.now();
    await emulator.close();
    expect(performance.now() - began).toBeLessThan(10_000);
    expect(await hanging).toBeInstanceOf(Error);
    agent.destroy();
    await expect(emulator.close()).resolves.toBeUndefined();
  });
});
