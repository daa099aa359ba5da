// injectNext with `after`: faults scripted for a later request of a route, behind what is queued.
import { describe, expect, it } from "vitest";
import { admin, create, emulators, hook, list } from "./helpers";

const start = emulators();

describe("injectNext after", () => {
  it("lets `after` requests pass, then applies the faults", async () => {
    const emulator = await start();
    emulator.injectNext("create", "server-error", 1, { after: 2 });
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i += 1) statuses.push((await create(emulator, hook(i))).status);
    expect(statuses).toEqual([200, 200, 500, 200]);
    expect(emulator.records().map((r) => r.webhook_name)).toEqual(["hook-1", "hook-2", "hook-4"]);
    expect(emulator.requests().map((e) => e.fault ?? "-")).toEqual(["-", "-", "server-error", "-"]);
  });

  it("counts `after` from the end of what is already queued, per route", async () => {
    const emulator = await start();
    emulator.injectNext("list", "rate-limit");
    emulator.injectNext("list", "server-error", 2, { after: 1 });
    await create(emulator, hook(1));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await list(emulator)).status);
    expect(statuses).toEqual([429, 200, 500, 503, 200]);
  });

  it("takes `after` on the admin inject route", async () => {
    const emulator = await start();
    expect(
      (
        await admin(emulator, "inject", "POST", {
          route: "create",
          kind: "drop-after-commit",
          count: 1,
          after: 1,
        })
      ).status,
    ).toBe(200);
    expect((await create(emulator, hook(1))).status).toBe(200);
    await expect(create(emulator, hook(2))).rejects.toThrow();
    expect((await create(emulator, hook(3))).status).toBe(200);
    // The dropped create was committed all the same.
    expect(emulator.records()).toHaveLength(3);
  });

  it("leaves the passing requests to the random faults", async () => {
    const emulator = await start({ faults: { list: { rate: 1, kinds: { "rate-limit": 1 } } } });
    emulator.injectNext("list", "malformed", 1, { after: 1 });
    expect((await list(emulator)).status).toBe(429);
    expect((await list(emulator)).text).toMatch(/^<html>/);
    expect((await list(emulator)).status).toBe(429);
  });

  it("forgets queued passes and faults on reset", async () => {
    const emulator = await start();
    emulator.injectNext("create", "server-error", 1, { after: 3 });
    emulator.reset();
    for (let i = 0; i < 5; i += 1) expect((await create(emulator, hook(i))).status).toBe(200);
  });
});
