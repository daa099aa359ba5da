import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { USAGE, main, optionsFromArgs } from "../../src/emulator/bin";
import { admin, binRunner, list } from "./helpers";

const { run } = binRunner();

const dir = mkdtempSync(join(tmpdir(), "webhooks-emulator-bin-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("CLI main", () => {
  it("starts, prints the URL line and the token length, never the token", async () => {
    const { emulator, lines } = await run(["--port", "0", "--token", "cli-secret-42"]);
    expect(lines[0]).toMatch(/^webhooks emulator listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines[0]).toBe(`webhooks emulator listening on ${emulator.url}`);
    expect(lines[1]).toBe("token: set (13 chars)");
    expect(lines.join("\n")).not.toContain("cli-secret-42");
    const reply = await list(emulator, {}, { authorization: "cli-secret-42" });
    expect(reply.json.code).toBe("200");
  });

  it("prints a generated admin token once, and that token opens the admin routes", async () => {
    const { emulator, lines } = await run(["--token", "cli-secret-42"]);
    expect(lines[2]).toMatch(/^admin token: [0-9a-f]{32}$/);
    expect(lines[2]).toBe(`admin token: ${emulator.adminToken}`);
    expect(lines.filter((line) => line.includes(emulator.adminToken))).toHaveLength(1);
    expect(
      (await admin(emulator, "health", "GET", undefined, { authorization: emulator.adminToken })).status,
    ).toBe(200);
    expect((await admin(emulator, "health", "GET", undefined, { authorization: null })).status).toBe(401);
  });

  it("does not repeat an admin token the config file chose", async () => {
    const config = join(dir, "admin.json");
    writeFileSync(config, JSON.stringify({ adminToken: "chosen-admin-secret" }));
    const { emulator, lines } = await run(["--config", config]);
    expect(emulator.adminToken).toBe("chosen-admin-secret");
    expect(lines).toContain("admin token: set (19 chars)");
    expect(lines.join("\n")).not.toContain("chosen-admin-secret");
  });

  it("takes the token from WEBHOOKS_ACCESS_TOKEN, else the default", async () => {
    const fromEnv = await run([], { WEBHOOKS_ACCESS_TOKEN: "env-token" });
    expect((await list(fromEnv.emulator, {}, { authorization: "env-token" })).status).toBe(200);
    const byDefault = await run([]);
    expect((await list(byDefault.emulator, {}, { authorization: "emulator-token" })).status).toBe(200);
  });

  it("reads a --config file under flags and applies the profile beneath both", async () => {
    const config = join(dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        paging: "none",
        seed: 3,
        faults: { list: { rate: 0.5, kinds: { "rate-limit": 1 } } },
      }),
    );
    const { emulator } = await run([
      "--config",
      config,
      "--profile",
      "small-pages",
      "--seed",
      "11",
      "--latency-ms",
      "5",
      "--fault-rate",
      "0",
      "--persist",
      join(dir, "state.json"),
    ]);
    expect(emulator.options()).toMatchObject({
      paging: "none",
      defaultPageSize: 5,
      seed: 11,
      latencyMs: 5,
      persistPath: join(dir, "state.json"),
      faults: { list: { rate: 0, kinds: { "rate-limit": 1 } }, create: { rate: 0 } },
    });
  });

  it("prints usage for --help without starting", async () => {
    const lines: string[] = [];
    expect(await main(["--help"], { log: (line) => lines.push(line), handleSignals: false })).toBeUndefined();
    expect(lines).toEqual([USAGE]);
  });

  it.each([
    [["--port", "abc"], /--port must be a non-negative integer/],
    [["--fault-rate", "2"], /--fault-rate must be a number from 0 to 1/],
    [["--bogus"], /Unknown option '--bogus'/],
    [["--profile", "nope"], /unknown profile/],
  ])("refuses %j", async (argv, message) => {
    await expect(main(argv, { env: {}, log: () => undefined, handleSignals: false })).rejects.toThrow(
      message,
    );
  });

  it("refuses a config file with unknown options", () => {
    const config = join(dir, "typo.json");
    writeFileSync(config, JSON.stringify({ pageing: "none" }));
    expect(() => optionsFromArgs(["--config", config], {})).toThrow(/pageing is not an emulator option/);
  });
});
