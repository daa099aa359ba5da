// The admin routes on a developer's machine: a web page in the browser can send requests to
// localhost, so they need a credential, a JSON content type and a loopback Host; every count a
// caller passes is bounded; the state file, which holds every sign_secret, is private.
import http from "node:http";
import net from "node:net";
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator/index";
import { TOKEN, admin, call, create, emulators, hook, list } from "./helpers";

const start = emulators();

/** An admin request with a Host header of our choosing (fetch does not let us set it). */
function withHost(
  emulator: Emulator,
  host: string,
  path = "records",
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${emulator.url}/__emulator/${path}`,
      { headers: { host, authorization: emulator.adminToken } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("admin credential", () => {
  it("refuses a missing or wrong credential with 401 JSON and changes nothing", async () => {
    const emulator = await start();
    emulator.addRecord(hook(1));
    const attempts = [
      await admin(emulator, "records", "GET", undefined, { authorization: null }),
      await admin(emulator, "reset", "POST", undefined, { authorization: null }),
      await admin(emulator, "records", "POST", hook(2), { authorization: "not-it" }),
      await admin(emulator, "records/1", "DELETE", undefined, {
        authorization: `Bearer ${emulator.adminToken}x`,
      }),
      await admin(emulator, "config", "POST", { paging: "none" }, { authorization: null }),
      await admin(
        emulator,
        "inject",
        "POST",
        { route: "create", kind: "server-error" },
        { authorization: null },
      ),
    ];
    for (const reply of attempts) {
      expect(reply.status).toBe(401);
      expect(reply.json.error).toMatch(/admin token/);
      expect(reply.text).not.toContain(emulator.adminToken);
    }
    expect(emulator.records().map((r) => r.webhook_name)).toEqual(["hook-1"]);
    expect(emulator.options().paging).toBe("cursor");
    expect((await create(emulator, hook(3))).status).toBe(200);
  });

  it("opens with the admin token (raw or Bearer) only: the API access token changes no setting, no token, no record", async () => {
    const emulator = await start();
    expect(emulator.adminToken).toMatch(/^[0-9a-f]{32}$/);
    for (const authorization of [emulator.adminToken, `Bearer ${emulator.adminToken}`])
      expect((await admin(emulator, "counters", "GET", undefined, { authorization })).status).toBe(200);
    // docs/emulator.md: the admin routes act only with the admin token, never the API token, which
    // every client holds: with it, a client could swap the tokens and lock everyone else out.
    const admin0 = emulator.adminToken;
    for (const authorization of [TOKEN, `bearer ${TOKEN}`]) {
      const attempts = [
        await admin(emulator, "config", "POST", { adminToken: "taken-over-1" }, { authorization }),
        await admin(emulator, "config", "POST", { accessToken: "taken-over-2" }, { authorization }),
        await admin(emulator, "records", "POST", hook(1), { authorization }),
        await admin(emulator, "counters", "GET", undefined, { authorization }),
        await admin(emulator, "requests", "GET", undefined, { authorization }),
      ];
      for (const reply of attempts) {
        expect(reply.status).toBe(401);
        expect(reply.json.error).toMatch(/API access token does not open them/);
      }
    }
    expect(emulator.adminToken).toBe(admin0);
    expect(emulator.records()).toHaveLength(0);
    expect((await list(emulator)).json.code).toBe("200");
    expect((await admin(emulator, "records", "POST", hook(1))).status).toBe(201);
    expect(emulator.records()).toHaveLength(1);
  });

  it("generates a fresh admin token per emulator, takes a chosen one, and never shows it in options", async () => {
    const a = await start();
    const b = await start();
    expect(a.adminToken).not.toBe(b.adminToken);
    const chosen = await start({ adminToken: "my-admin-secret" });
    expect(chosen.adminToken).toBe("my-admin-secret");
    expect((await admin(chosen, "health")).status).toBe(200);
    const served = (await admin(chosen, "config")).text;
    expect(chosen.options().adminToken).toBe("<redacted>");
    for (const text of [served, JSON.stringify(a.options())]) {
      expect(text).not.toContain("my-admin-secret");
      expect(text).not.toContain(a.adminToken);
    }
  });
});

describe("admin content type, Host and CORS", () => {
  it("refuses text/plain and missing content types on requests that change things (415), changing nothing", async () => {
    const emulator = await start();
    emulator.addRecord(hook(1));
    const plain = await admin(emulator, "reset", "POST", undefined, { contentType: "text/plain" });
    expect(plain.status).toBe(415);
    expect(plain.json.error).toMatch(/application\/json/);
    expect((await admin(emulator, "records", "POST", hook(2), { contentType: "text/plain" })).status).toBe(
      415,
    );
    expect(
      (
        await admin(emulator, "config", "POST", undefined, {
          raw: '{"paging":"none"}',
          contentType: "text/plain",
        })
      ).status,
    ).toBe(415);
    expect((await admin(emulator, "records/1", "DELETE", undefined, { contentType: null })).status).toBe(415);
    expect(
      (
        await admin(emulator, "records", "POST", hook(3), {
          contentType: "application/x-www-form-urlencoded",
        })
      ).status,
    ).toBe(415);
    expect(emulator.records().map((r) => r.webhook_name)).toEqual(["hook-1"]);
    expect(emulator.options().paging).toBe("cursor");
    // A GET without a body needs no content type; JSON with parameters is fine.
    expect((await admin(emulator, "records", "GET", undefined, { contentType: null })).status).toBe(200);
    expect(
      (await admin(emulator, "records", "POST", hook(4), { contentType: "application/json; charset=utf-8" }))
        .status,
    ).toBe(201);
  });

  it("answers only a loopback Host (403 otherwise: DNS rebinding)", async () => {
    const emulator = await start();
    emulator.addRecord(hook(1));
    for (const host of [
      "evil.example",
      "evil.example:80",
      "localhost.evil.example",
      "127.0.0.1.evil.example",
      "10.0.0.5",
    ]) {
      const reply = await withHost(emulator, host);
      expect(reply.status, host).toBe(403);
      expect(reply.text).not.toContain("sign_secret");
    }
    expect((await withHost(emulator, "evil.example", "health")).status).toBe(403);
    for (const host of [
      "localhost",
      `localhost:${emulator.port}`,
      "127.0.0.1",
      `127.0.0.1:${emulator.port}`,
      "[::1]",
      `[::1]:${emulator.port}`,
      "LOCALHOST",
    ]) {
      expect((await withHost(emulator, host)).status, host).toBe(200);
    }
  });

  it("the API routes too answer only a loopback Host when bound to loopback: a rebinding page lists nothing and creates nothing", async () => {
    const emulator = await start();
    emulator.addRecord(hook(1));
    const api = (host: string, path: string, body: unknown) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const payload = JSON.stringify(body);
        const req = http.request(
          `${emulator.url}${path}`,
          {
            method: "POST",
            headers: {
              host,
              authorization: TOKEN,
              "content-type": "application/json",
              "content-length": Buffer.byteLength(payload),
            },
          },
          (res) => {
            let text = "";
            res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
          },
        );
        req.on("error", reject);
        req.end(payload);
      });
    const listBody = { cursor: "", limit: 10, webhook_name: "", webhook_url: "", ascending: "true" };
    for (const host of [
      "evil.example",
      `evil.example:${emulator.port}`,
      "localhost.evil.example",
      "10.0.0.5",
    ]) {
      const listed = await api(host, "/open-api/v1/webhooks", listBody);
      expect(listed.status, host).toBe(403);
      expect(listed.text).not.toContain("sign_secret");
      expect(
        (
          await api(host, "/open-api/v1/webhooks/create", {
            webhook_name: "x",
            webhook_url: "https://x.example",
          })
        ).status,
        host,
      ).toBe(403);
    }
    expect(emulator.records()).toHaveLength(1);
    for (const host of [
      `localhost:${emulator.port}`,
      `127.0.0.1:${emulator.port}`,
      `127.0.0.2:${emulator.port}`,
    ]) {
      const listed = await api(host, "/open-api/v1/webhooks", listBody);
      expect(listed.status, host).toBe(200);
      expect(listed.text).toContain("sign_secret");
    }
  });

  it("two Host headers are refused, whichever comes first", async () => {
    const emulator = await start();
    emulator.addRecord(hook(1));
    const raw = (path: string, hosts: string[], body: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(emulator.port, "127.0.0.1", () => {
          const headers = [
            ...hosts.map((host) => `Host: ${host}`),
            `Authorization: ${TOKEN}`,
            "Content-Type: application/json",
            `Content-Length: ${Buffer.byteLength(body)}`,
            "Connection: close",
          ];
          socket.end(`POST ${path} HTTP/1.1\r\n${headers.join("\r\n")}\r\n\r\n${body}`);
        });
        let text = "";
        socket.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
      });
    const list = JSON.stringify({
      cursor: "",
      limit: 10,
      webhook_name: "",
      webhook_url: "",
      ascending: "true",
    });
    for (const hosts of [
      ["localhost", "evil.example"],
      ["evil.example", "localhost"],
      ["localhost", "localhost"],
    ]) {
      const reply = await raw("/open-api/v1/webhooks", hosts, list);
      expect(reply.split(" ")[1], hosts.join(", ")).not.toBe("200");
      expect(reply).not.toContain("sign_secret");
    }
    expect((await raw("/open-api/v1/webhooks", ["localhost"], list)).split(" ")[1]).toBe("200");
  });

  it("sends no CORS headers, not even to a preflight", async () => {
    const emulator = await start();
    const preflight = await fetch(`${emulator.url}/__emulator/reset`, {
      method: "OPTIONS",
      headers: {
        origin: "https://evil.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization",
      },
    });
    const normal = await admin(emulator, "records");
    for (const headers of [preflight.headers, normal.headers]) {
      for (const name of headers.keys()) expect(name).not.toMatch(/^access-control-/);
    }
    expect(preflight.status).toBe(401);
  });
});

describe("bounded counts", () => {
  it("refuses inject count 1e8 with 400 and a clear message, queueing nothing", async () => {
    const emulator = await start();
    const heapBefore = process.memoryUsage().heapUsed;
    const reply = await admin(emulator, "inject", "POST", {
      route: "create",
      kind: "server-error",
      count: 1e8,
    });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toBe("inject.count must be an integer from 0 to 10000");
    expect(
      (await admin(emulator, "inject", "POST", { route: "create", kind: "server-error", after: 1e8 })).status,
    ).toBe(400);
    expect(
      (await admin(emulator, "inject", "POST", { route: "create", kind: "server-error", count: 1, extra: 1 }))
        .json.error,
    ).toMatch(/inject\.extra is not/);
    expect(() => emulator.injectNext("create", "server-error", 1e8)).toThrow(
      "injectNext.count must be an integer from 0 to 10000",
    );
    expect(() => emulator.injectNext("create", "server-error", 1, { after: -1 })).toThrow(
      /injectNext\.after/,
    );
    expect(() => emulator.injectNext("create", "server-error", 1.5)).toThrow(/injectNext\.count/);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(50 * 1024 * 1024);
    // Nothing was queued: the next create is not faulted.
    expect((await create(emulator, hook(1))).status).toBe(200);
    expect(emulator.counters().faults["server-error"]).toBe(0);
  });

  it("bounds the whole queue of a route, not just each call", async () => {
    const emulator = await start();
    for (let i = 0; i < 10; i += 1) emulator.injectNext("list", "rate-limit", 10_000);
    expect(() => emulator.injectNext("list", "rate-limit", 1)).toThrow(
      /list fault queue holds at most 100000 requests/,
    );
    const refused = await admin(emulator, "inject", "POST", { route: "list", kind: "server-error" });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatch(/at most 100000/);
    // The create queue is separate, and reset empties both.
    emulator.injectNext("create", "server-error", 1);
    emulator.reset();
    expect((await list(emulator)).status).toBe(200);
    expect((await create(emulator, hook(1))).status).toBe(200);
  });

  it.each([
    [{ requestLogLimit: 100_001 }, /options\.requestLogLimit must be an integer from 0 to 100000/],
    [{ maxPageSize: 10_001 }, /options\.maxPageSize must be an integer from 1 to 10000/],
    [{ defaultPageSize: 1e9 }, /options\.defaultPageSize must be an integer from 1 to 10000/],
    [{ latencyMs: 60_001 }, /options\.latencyMs must be an integer from 0 to 60000/],
    [{ maxBodyBytes: 16 * 1024 * 1024 + 1 }, /options\.maxBodyBytes must be an integer from 1 to 16777216/],
    [
      { faults: { list: { rate: 0.5, slowMs: 600_000 } } },
      /options\.faults\.list\.slowMs must be an integer from 0 to 60000/,
    ],
    [
      { faults: { create: { rate: 0.5, retryAfterSeconds: 1e7 } } },
      /options\.faults\.create\.retryAfterSeconds must be an integer/,
    ],
    [{ maxNameLength: 1e9 }, /options\.maxNameLength must be an integer from 1 to 65536/],
    [{ seed: 2 ** 33 }, /options\.seed must be an integer from 0 to 4294967295/],
    [
      {
        principals: Array.from({ length: 101 }, (_, i) => ({
          token: `t${i}`,
          creator: { id: i, name: "n" },
        })),
      },
      /options\.principals must have at most 100 entries/,
    ],
    [
      { accessToken: "x".repeat(5000) },
      /options\.accessToken must be a non-empty string of at most 4096 characters/,
    ],
  ])("refuses %j", async (options, message) => {
    await expect(startEmulator({ accessToken: TOKEN, ...options })).rejects.toThrow(message);
  });

  it("refuses an unbounded value through the admin config route and keeps the options", async () => {
    const emulator = await start();
    const reply = await admin(emulator, "config", "POST", { requestLogLimit: 1e9, paging: "none" });
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatch(/configure\.requestLogLimit must be an integer from 0 to 100000/);
    expect(emulator.options()).toMatchObject({ requestLogLimit: 10000, paging: "cursor" });
  });
});

describe("persist file permissions", () => {
  const dir = mkdtempSync(join(tmpdir(), "webhooks-emulator-mode-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const mode = (path: string) => statSync(path).mode & 0o777;

  it("creates the state file 0600 (in a 0700 directory) and keeps it 0600 after every rewrite", async () => {
    const persistPath = join(dir, "private", "state.json");
    const emulator = await start({ persistPath });
    for (let i = 1; i <= 3; i += 1) {
      expect((await create(emulator, hook(i))).status).toBe(200);
      expect(mode(persistPath)).toBe(0o600);
    }
    expect(mode(join(dir, "private"))).toBe(0o700);
    emulator.updateRecord(1, { webhook_name: "renamed" });
    expect(mode(persistPath)).toBe(0o600);
    emulator.removeRecord(2);
    expect(mode(persistPath)).toBe(0o600);
    emulator.reset();
    expect(mode(persistPath)).toBe(0o600);
  });

  it("tightens a file left readable by others at its first rewrite", async () => {
    const persistPath = join(dir, "loose.json");
    writeFileSync(persistPath, JSON.stringify({ version: 1, next_id: 1, records: [] }));
    chmodSync(persistPath, 0o644);
    const emulator = await start({ persistPath });
    await create(emulator, hook(1));
    expect(mode(persistPath)).toBe(0o600);
    const again = await start({ persistPath });
    expect(again.records()).toHaveLength(1);
  });
});

/**
 * A POST to `path` whose body never ends (a length announced, one chunk sent, nothing more): how
 * the emulator answers while the body is still coming, with the connection closed after.
 */
function neverEndingPost(
  emulator: Emulator,
  path: string,
  authorization: string | undefined,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${emulator.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": String(64 * 1024 * 1024),
        ...(authorization === undefined ? {} : { authorization }),
      },
    });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, text });
        req.destroy();
      });
    });
    req.on("error", reject);
    req.write(`[${"{},".repeat(20_000)}`);
  });
}

// docs/emulator.md, "Bounds": the token is checked from the headers before the body is read, and
// nothing of an unauthenticated request's body is kept (2,000 such 64 KiB POSTs took the emulator
// from 70 MB to 2.9 GB, for good, when their parsed bodies stayed in the request log).
describe("before authentication", () => {
  it("answers an unauthenticated POST 401 before its body ends, on both routes and the admin routes", async () => {
    const emulator = await start({ accessToken: TOKEN, latencyMs: 0 });
    for (const path of ["/open-api/v1/webhooks", "/open-api/v1/webhooks/create"]) {
      for (const authorization of [undefined, "not-the-token"]) {
        const reply = await neverEndingPost(emulator, path, authorization);
        expect(reply.status).toBe(401);
        expect(JSON.parse(reply.text)).toMatchObject({ code: "40101" });
      }
    }
    // The API token is no credential for the admin routes, so it gets no further than no token.
    for (const authorization of [undefined, TOKEN]) {
      const reply = await neverEndingPost(emulator, "/__emulator/records", authorization);
      expect(reply.status).toBe(401);
    }
    expect(emulator.records()).toEqual([]);
  });

  it("keeps nothing of an unauthenticated request's body: the request log shows none", async () => {
    const emulator = await start({ accessToken: TOKEN, latencyMs: 0 });
    const big = { webhook_name: "flood", webhook_url: "https://example.com/x", pad: "{}".repeat(30_000) };
    const paths = ["/open-api/v1/webhooks", "/open-api/v1/webhooks/create", "/open-api/v1/elsewhere"];
    for (const path of paths) {
      for (const authorization of [null, "Bearer not-the-token"]) {
        const reply = await call(emulator.url, path, big, { authorization });
        expect(reply.status).toBe(path.endsWith("elsewhere") ? 404 : 401);
      }
    }
    const log = emulator.requests();
    expect(log).toHaveLength(paths.length * 2);
    for (const entry of log) expect(entry.body).toBeNull();
    // With the token, the body is read and logged as before.
    await call(emulator.url, "/open-api/v1/elsewhere", { seen: true });
    expect(emulator.requests().at(-1)?.body).toEqual({ seen: true });
    expect(emulator.records()).toEqual([]);
  });
});
