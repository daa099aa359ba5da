import { describe, expect, it } from "vitest";
import { TRACE_ID, create, emulators, hook, list } from "./helpers";

const start = emulators();

describe("success envelopes", () => {
  it("create answers code 200, msg Success and the stored record", async () => {
    const emulator = await start({ now: () => 1_700_000_000_123 });
    const reply = await create(emulator, hook(1));
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    expect(reply.json).toEqual({
      code: "200",
      msg: "Success",
      trace_id: expect.stringMatching(TRACE_ID),
      data: {
        webhook_id: 1,
        webhook_name: "hook-1",
        webhook_url: "https://example.com/hooks/1",
        sign_secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
        creator_id: 1001,
        creator_name: "open-api",
        create_time: 1_700_000_000_123,
        operator_id: 1001,
        operator_name: "open-api",
        operate_time: 1_700_000_000_123,
      },
    });
    expect(reply.headers.get("x-trace-id")).toBe(reply.json.trace_id);
    expect(emulator.records()).toEqual([reply.json.data]);
  });

  it("list answers code 200, msg SUCCESS and data.data", async () => {
    const emulator = await start();
    emulator.addRecord(hook(1));
    const reply = await list(emulator, {
      cursor: "",
      limit: 10,
      webhook_name: "",
      webhook_url: "",
      ascending: "true",
    });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({
      code: "200",
      msg: "SUCCESS",
      trace_id: expect.stringMatching(TRACE_ID),
    });
    expect(reply.json.data.data).toEqual(emulator.records());
  });

  it("stamps the configured creator as operator, with operate_time equal to create_time", async () => {
    let clock = 5_000;
    const emulator = await start({ creator: { id: 42, name: "ci-bot" }, now: () => (clock += 1000) });
    const first = (await create(emulator, hook(1))).json.data;
    const second = (await create(emulator, hook(2))).json.data;
    for (const record of [first, second]) {
      expect(record).toMatchObject({
        creator_id: 42,
        creator_name: "ci-bot",
        operator_id: 42,
        operator_name: "ci-bot",
      });
      expect(record.operate_time).toBe(record.create_time);
    }
    expect(second.create_time).toBeGreaterThan(first.create_time);
  });

  it("gives increasing integer ids and distinct sign secrets", async () => {
    const emulator = await start();
    const records: { webhook_id: number; sign_secret: string }[] = [];
    for (let i = 0; i < 5; i += 1) records.push((await create(emulator, hook(i))).json.data);
    expect(records.map((r) => r.webhook_id)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(records.map((r) => r.sign_secret)).size).toBe(5);
  });

  it("sends a fresh trace id in body and header on every response, errors included", async () => {
    const emulator = await start();
    const replies = [
      await list(emulator),
      await list(emulator),
      await create(emulator, {}),
      await list(emulator, {}, { authorization: null }),
    ];
    const ids = replies.map((reply) => reply.json.trace_id as string);
    for (const [i, reply] of replies.entries()) {
      expect(ids[i]).toMatch(TRACE_ID);
      expect(reply.headers.get("x-trace-id")).toBe(ids[i]);
    }
    expect(new Set(ids).size).toBe(replies.length);
  });
});
