import { describe, expect, it } from "vitest";
import type { Emulator, EmulatorOptions } from "../../src/emulator/index";
import { waitUntil } from "../support/helpers";
import { create, CREATE, emulators, hook, list } from "./helpers";

const start = emulators();

describe("scripted faults", () => {
  it("server-error: 500 then 503, nothing stored", async () => {
    const emulator = await start();
    emulator.injectNext("create", "server-error", 2);
    const first = await create(emulator, hook(1));
    const second = await create(emulator, hook(2));
    expect([first.status, second.status]).toEqual([500, 503]);
    expect(first.json).toMatchObject({ code: "50001", data: null });
    expect(second.json).toMatchObject({ code: "50301", data: null });
    expect(emulator.records()).toEqual([]);
    expect(emulator.requests().map((e) => e.fault)).toEqual(["server-error", "server-error"]);
    expect((await create(emulator, hook(3))).status).toBe(200);
  });

  it("rate-limit: 429 with Retry-After, nothing stored", async () => {
    const emulator = await start({ faults: { create: { rate: 0, retryAfterSeconds: 7 } } });
    emulator.injectNext("create", "rate-limit");
    const reply = await create(emulator, hook(1));
    expect(reply.status).toBe(429);
    expect(reply.headers.get("retry-after")).toBe("7");
    expect(reply.json).toMatchObject({ code: "42901", msg: "rate limit exceeded" });
    expect(emulator.records()).toEqual([]);
    expect(emulator.counters().faults["rate-limit"]).toBe(1);
  });

  it("rate-limit with errors-in-200: HTTP 200, code 42901, Retry-After kept", async () => {
    const emulator = await start({ errorStyle: "envelope-200" });
    emulator.injectNext("list", "rate-limit");
    const reply = await list(emulator);
    expect(reply.status).toBe(200);
    expect(reply.json.code).toBe("42901");
    expect(reply.headers.get("retry-after")).toBe("1");
  });

  it("latency: answers normally after slowMs", async () => {
    const emulator = await start({ faults: { create: { rate: 0, slowMs: 150 } } });
    emulator.injectNext("create", "latency");
    const began = performance.now();
    const reply = await create(emulator, hook(1));
    expect(performance.now() - began).toBeGreaterThanOrEqual(140);
    expect(reply.json.code).toBe("200");
    expect(emulator.records()).toHaveLength(1);
  });

  it("latency: a client that gives up does not stop the create from being stored", async () => {
    const emulator = await start({ faults: { create: { rate: 0, slowMs: 2000 } } });
    emulator.injectNext("create", "latency");
    // The client gives up once the service has the whole request (the journal holds its body) and
    // is holding it for slowMs; what is stored is read at that moment, then once the service is done.
    const giveUp = new AbortController();
    const aborted = fetch(emulator.url + CREATE, {
      method: "POST",
      headers: { authorization: "test-token-0123456789", "content-type": "application/json" },
      body: JSON.stringify(hook(1)),
      signal: giveUp.signal,
    });
    await waitUntil("the create request's body reaches the emulator", () =>
      emulator.requests().some((r) => r.route === "create" && r.body !== null),
    );
    const storedWhenGivenUp = emulator.records();
    giveUp.abort();
    await expect(aborted).rejects.toThrow();
    expect(storedWhenGivenUp).toEqual([]);
    await waitUntil(
      "the emulator stores the create after its latency",
      () => emulator.counters().created === 1,
    );
    expect(emulator.records()).toMatchObject([hook(1)]);
    expect(emulator.requests()).toHaveLength(1);
  });

  it("reset-before: the client sees a socket error and nothing is stored", async () => {
    const emulator = await start();
    emulator.injectNext("create", "reset-before");
    await expect(create(emulator, hook(1))).rejects.toThrow();
    expect(emulator.records()).toEqual([]);
    expect(emulator.requests()[0]).toMatchObject({ status: 0, fault: "reset-before", body: hook(1) });
  });

  it("drop-after-commit: the client sees a socket error but the record IS stored", async () => {
    const emulator = await start();
    emulator.injectNext("create", "drop-after-commit");
    await expect(create(emulator, hook(1))).rejects.toThrow();
    expect(emulator.records()).toMatchObject([hook(1)]);
    expect(emulator.counters()).toMatchObject({ created: 1, faults: { "drop-after-commit": 1 } });
    expect(emulator.requests()[0]).toMatchObject({ status: 0, fault: "drop-after-commit" });
  });

  it("truncated (content-length): headers arrive, reading the body fails, the record IS stored", async () => {
    const emulator = await start();
    emulator.injectNext("create", "truncated");
    const response = await fetch(emulator.url + CREATE, {
      method: "POST",
      headers: { authorization: "test-token-0123456789", "content-type": "application/json" },
      body: JSON.stringify(hook(1)),
    });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(emulator.records()).toHaveLength(1);
  });

  it("truncated (chunked-end): half a JSON body, properly ended", async () => {
    const emulator = await start({ faults: { list: { rate: 0, truncation: "chunked-end" } } });
    emulator.addRecord(hook(1));
    emulator.injectNext("list", "truncated");
    const reply = await list(emulator);
    expect(reply.status).toBe(200);
    expect(reply.json).toBeUndefined();
    expect(reply.text.startsWith('{"code":"200"')).toBe(true);
  });

  it("malformed: rotates html, wrong JSON and a wrongly typed data; creates ARE stored", async () => {
    const emulator = await start();
    emulator.injectNext("create", "malformed", 3);
    const replies = [
      await create(emulator, hook(1)),
      await create(emulator, hook(2)),
      await create(emulator, hook(3)),
    ];
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(replies[0]!.text).toMatch(/^<html>/);
    expect(replies[0]!.headers.get("content-type")).toMatch(/^text\/html/);
    expect(replies[1]!.json).toEqual({ code: 200, data: "oops" });
    expect(replies[2]!.json).toMatchObject({ code: "200", data: [] });
    expect(emulator.records()).toHaveLength(3);
  });

  it("gateway-error: the create IS stored, then a gateway answers 503, 502, 504 in turn, never the envelope", async () => {
    const emulator = await start();
    emulator.injectNext("create", "gateway-error", 3);
    const replies = [
      await create(emulator, hook(1)),
      await create(emulator, hook(2)),
      await create(emulator, hook(3)),
    ];
    expect(replies.map((r) => r.status)).toEqual([503, 502, 504]);
    expect(replies[0]!.text).toMatch(/^upstream connect error or disconnect\/reset before headers/);
    expect(replies[1]!.text).toContain("502 Bad Gateway");
    expect(replies[2]!.text).toBe("upstream request timeout");
    for (const reply of replies) expect(reply.json).toBeUndefined();
    expect(emulator.records()).toMatchObject([hook(1), hook(2), hook(3)]);
    expect(emulator.requests().map((e) => [e.status, e.fault])).toEqual([
      [503, "gateway-error"],
      [502, "gateway-error"],
      [504, "gateway-error"],
    ]);
  });

  it("applies scripted faults per route and in order", async () => {
    const emulator = await start();
    emulator.injectNext("list", "rate-limit");
    emulator.injectNext("list", "server-error");
    expect((await create(emulator, hook(1))).status).toBe(200);
    expect((await list(emulator)).status).toBe(429);
    expect((await list(emulator)).status).toBe(500);
    expect((await list(emulator)).status).toBe(200);
  });
});

describe("random faults", () => {
  const fastFaults: EmulatorOptions = {
    faults: { list: { rate: 0.5, kinds: { "server-error": 1, "rate-limit": 1 } } },
  };

  async function sequence(emulator: Emulator, n: number): Promise<string[]> {
    const statuses: number[] = [];
    for (let i = 0; i < n; i += 1) statuses.push((await list(emulator)).status);
    const faults = emulator
      .requests()
      .slice(-n)
      .map((entry) => entry.fault ?? "-");
    // The status each client saw agrees with the logged fault.
    faults.forEach((fault, i) => {
      const expected = fault === "rate-limit" ? [429] : fault === "server-error" ? [500, 503] : [200];
      expect(expected).toContain(statuses[i]);
    });
    return faults;
  }

  it("is reproducible from the seed", async () => {
    const a = await sequence(await start({ ...fastFaults, seed: 42 }), 40);
    const b = await sequence(await start({ ...fastFaults, seed: 42 }), 40);
    const c = await sequence(await start({ ...fastFaults, seed: 43 }), 40);
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
    expect(new Set(a)).toEqual(new Set(["-", "server-error", "rate-limit"]));
  });

  it("restarts the same sequence after reset, and scripted faults do not shift it", async () => {
    const emulator = await start({ ...fastFaults, seed: 9 });
    const first = await sequence(emulator, 20);
    emulator.reset();
    emulator.injectNext("list", "malformed");
    const second = await sequence(emulator, 20);
    expect(second.slice(1)).toEqual(first.slice(1));
    expect(second[0]).toBe("malformed");
  });

  it("does not let create traffic change the list sequence", async () => {
    const quiet = await start({ ...fastFaults, seed: 5 });
    const busy = await start({
      ...fastFaults,
      seed: 5,
      faults: { ...fastFaults.faults, create: { rate: 0.5, kinds: { "rate-limit": 1 } } },
    });
    const expected = await sequence(quiet, 15);
    const observed: string[] = [];
    for (let i = 0; i < 15; i += 1) {
      await create(busy, hook(i));
      observed.push(...(await sequence(busy, 1)));
    }
    expect(observed).toEqual(expected);
  });

  it("uses only kinds with positive weight and honours rate 1", async () => {
    const emulator = await start({ faults: { create: { rate: 1, kinds: { malformed: 1, latency: 0 } } } });
    for (let i = 0; i < 4; i += 1) await create(emulator, hook(i));
    expect(emulator.requests().map((e) => e.fault)).toEqual([
      "malformed",
      "malformed",
      "malformed",
      "malformed",
    ]);
  });

  it("can be switched on and off at run time", async () => {
    const emulator = await start();
    emulator.configure({ faults: { list: { rate: 1, kinds: { "rate-limit": 1 } } } });
    expect((await list(emulator)).status).toBe(429);
    emulator.configure({ faults: {} });
    expect((await list(emulator)).status).toBe(200);
  });
});

describe("latency option", () => {
  it("delays every API response by latencyMs, and no longer once it is set to 0", async () => {
    // Only lower bounds on time, or an upper bound of the latency itself: a busy machine makes a
    // call slower, never faster, so neither can fail for load alone.
    const latencyMs = 1500;
    const emulator = await start({ latencyMs });
    const began = performance.now();
    await list(emulator);
    expect(performance.now() - began).toBeGreaterThanOrEqual(latencyMs - 10);
    emulator.configure({ latencyMs: 0 });
    const again = performance.now();
    await list(emulator);
    expect(performance.now() - again).toBeLessThan(latencyMs);
  });
});
