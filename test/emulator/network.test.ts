// The emulator bound where other machines can reach it (--host 0.0.0.0, ::, a LAN address): it
// says so, it refuses to start with the well-known default token, and the API access token (which
// every client holds) opens no admin route, there as on loopback: a remote client may send any Host
// header, so the loopback Host check alone protects nothing there.
import http from "node:http";
import { networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import { findListeningUrl } from "../../scripts/harness/emulator.mjs";
import { USAGE, main, optionsFromArgs } from "../../src/emulator/bin";
import { EmulatorConfigError, startEmulator } from "../../src/emulator/index";
import { isLoopbackAddress } from "../../src/emulator/server";
import { TOKEN, admin, binRunner, hook, list } from "./helpers";

const { run, track } = binRunner();

/** A first non-internal IPv4 address of this machine, if it has one: what another machine would connect to. */
function lanAddress(): string | undefined {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) if (entry.family === "IPv4" && !entry.internal) return entry.address;
  }
  return undefined;
}

/** An admin request to `address`:`port` with a Host header of our choosing, as any network client can send. */
function adminFrom(
  address: string,
  port: number,
  authorization: string,
  host = "localhost",
  path = "records",
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: address, port, path: `/__emulator/${path}`, headers: { host, authorization } },
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

describe("CLI: a non-loopback --host", () => {
  it("refuses to start without a chosen access token, saying what to do; the well-known one chosen explicitly is refused too", () => {
    for (const [argv, env] of [
      [["--host", "0.0.0.0"], {}],
      [["--host", "::"], {}],
      [["--host", "192.168.10.20"], {}],
      [["--host", "0.0.0.0", "--token", "emulator-token"], {}],
      [["--host", "0.0.0.0"], { WEBHOOKS_ACCESS_TOKEN: "emulator-token" }],
    ] as [string[], NodeJS.ProcessEnv][]) {
      let error: unknown;
      try {
        optionsFromArgs(argv, env);
      } catch (caught) {
        error = caught;
      }
      expect(error, argv.join(" ")).toBeInstanceOf(EmulatorConfigError);
      expect((error as Error).message).toMatch(/is not a loopback interface/);
      expect((error as Error).message).toMatch(/--token <t> or WEBHOOKS_ACCESS_TOKEN/);
      expect((error as Error).message).toMatch(/or listen on 127\.0\.0\.1/);
    }
  });

  it("main rejects before listening: no emulator is left running", async () => {
    const lines: string[] = [];
    await expect(
      main(["--host", "0.0.0.0", "--port", "0"], {
        env: {},
        log: (line) => lines.push(line),
        handleSignals: false,
      }),
    ).rejects.toThrow(/not a loopback interface/);
    expect(lines).toEqual([]);
  });

  it("loopback hosts keep the default token", async () => {
    for (const host of ["127.0.0.1", "localhost"]) {
      const { emulator, lines } = await run(["--host", host]);
      expect(emulator.bound.loopback).toBe(true);
      expect((await list(emulator, {}, { authorization: "emulator-token" })).status).toBe(200);
      expect(lines.some((line) => line.startsWith("bound to"))).toBe(false);
    }
  });

  it("--host 0.0.0.0 with a token: a URL that works, parsed by the harness; says it listens on all interfaces", async () => {
    const { emulator, lines } = await run(["--host", "0.0.0.0", "--port", "0"], {
      WEBHOOKS_ACCESS_TOKEN: "net-secret-5c1f",
    });
    expect(lines[0]).toBe(`webhooks emulator listening on http://127.0.0.1:${emulator.port}`);
    expect(findListeningUrl(`${lines.join("\n")}\n`)).toBe(emulator.url);
    expect(lines[1]).toBe(
      `bound to 0.0.0.0:${emulator.port} (all IPv4 interfaces): other machines can reach it; the admin routes take only the admin token`,
    );
    expect(lines[2]).toBe("token: set (15 chars)");
    expect(lines.join("\n")).not.toContain("net-secret-5c1f");
    expect(emulator.bound).toEqual({
      address: "0.0.0.0",
      family: "IPv4",
      port: emulator.port,
      loopback: false,
      allInterfaces: true,
    });
    expect((await list(emulator, {}, { authorization: "net-secret-5c1f" })).status).toBe(200);
  });

  it("--help says all of it", () => {
    expect(USAGE).toMatch(/0\.0\.0\.0 or :: is every interface/);
    expect(USAGE).toMatch(/needs a chosen access token/);
    expect(USAGE).toMatch(/only a loopback interface accepts/);
    expect(USAGE).toMatch(/take only the admin token printed at start \(never the access\s+token\)/);
  });
});

describe("admin routes on a non-loopback bind", () => {
  it("take only the admin token: the API access token with Host: localhost is refused (401), changing nothing", async () => {
    const lan = lanAddress();
    const emulator = await startEmulator({ host: lan ?? "0.0.0.0", accessToken: TOKEN });
    track(emulator);
    expect(emulator.bound.loopback).toBe(false);
    emulator.addRecord(hook(1));
    // Reached the way another machine would: its address when it has one, else through 0.0.0.0's loopback.
    const address = lan ?? "127.0.0.1";
    for (const authorization of [TOKEN, `Bearer ${TOKEN}`, "emulator-token"]) {
      const reply = await adminFrom(address, emulator.port, authorization);
      expect(reply.status).toBe(401);
      expect(reply.text).toMatch(/the API access token does not open them/);
    }
    const reset = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: address,
          port: emulator.port,
          method: "POST",
          path: "/__emulator/reset",
          headers: { host: "localhost", authorization: TOKEN, "content-type": "application/json" },
        },
        (res) => {
          res.resume().on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
    expect(reset).toBe(401);
    expect(emulator.records()).toHaveLength(1);
    // The admin token still opens them; the API still takes the access token.
    expect((await adminFrom(address, emulator.port, emulator.adminToken)).status).toBe(200);
    expect(
      (await adminFrom(address, emulator.port, `Bearer ${emulator.adminToken}`, "localhost", "counters"))
        .status,
    ).toBe(200);
    expect((await list(emulator, {}, { authorization: TOKEN })).status).toBe(200);
  });

  it("a loopback bind takes only the admin token too", async () => {
    const emulator = await startEmulator({ accessToken: TOKEN });
    track(emulator);
    expect(emulator.bound).toMatchObject({ address: "127.0.0.1", loopback: true, allInterfaces: false });
    expect((await admin(emulator, "counters", "GET", undefined, { authorization: TOKEN })).status).toBe(401);
    expect((await admin(emulator, "counters")).status).toBe(200);
  });
});

describe("startEmulator on a non-loopback interface", () => {
  it("refuses no access token, or the well-known default one", async () => {
    await expect(startEmulator({ host: "0.0.0.0" })).rejects.toThrow(EmulatorConfigError);
    await expect(startEmulator({ host: "0.0.0.0", accessToken: "emulator-token" })).rejects.toThrow(
      /pass accessToken/,
    );
  });

  it("takes a chosen token", async () => {
    const emulator = await startEmulator({ host: "0.0.0.0", accessToken: TOKEN });
    track(emulator);
    expect(emulator.url).toBe(`http://127.0.0.1:${emulator.port}`);
    expect(emulator.bound.allInterfaces).toBe(true);
  });
});

describe("isLoopbackAddress", () => {
  it("knows loopback addresses from the others", () => {
    for (const address of [
      "127.0.0.1",
      "127.1.2.3",
      "::1",
      "[::1]",
      "localhost",
      "LOCALHOST",
      "::ffff:127.0.0.1",
    ])
      expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of [
      "0.0.0.0",
      "::",
      "192.168.1.5",
      "10.0.0.1",
      "example.com",
      "128.0.0.1",
      "::ffff:10.0.0.1",
    ])
      expect(isLoopbackAddress(address), address).toBe(false);
  });
});
