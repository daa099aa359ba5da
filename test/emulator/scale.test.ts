// The store at 50,000 records: an exact name filter, a create and descending pages still answer
// right. How fast is the benchmark's to measure (bench/client.mjs), not a test's: a wall-clock
// bound here failed on a machine at load 15.
import { describe, expect, it } from "vitest";
import { create, emulators, hook, list } from "./helpers";

const start = emulators();
const RECORDS = 50_000;

describe("at 50,000 records", () => {
  it("lists by name, creates and pages backwards", async () => {
    const emulator = await start({ requestLogLimit: 100 });
    for (let i = 1; i <= RECORDS; i += 1) emulator.addRecord(hook(i));
    expect(emulator.records()).toHaveLength(RECORDS);

    const matched = (await list(emulator, { webhook_name: "hook-31337", limit: 10 })).json.data.data;
    expect(matched).toMatchObject([{ webhook_id: 31337, webhook_name: "hook-31337" }]);

    let next = RECORDS;
    for (let i = 0; i < 5; i += 1) {
      next += 1;
      expect((await create(emulator, hook(next))).json.data.webhook_id).toBe(next);
    }

    // Descending pages walk from the newest record, also at this size.
    const newest = (await list(emulator, { limit: 3, ascending: "false" })).json.data;
    expect(newest.data.map((r: { webhook_id: number }) => r.webhook_id)).toEqual([next, next - 1, next - 2]);
    const page = (await list(emulator, { limit: 2, cursor: newest.cursor, ascending: "false" })).json.data;
    expect(page.data.map((r: { webhook_id: number }) => r.webhook_id)).toEqual([next - 3, next - 4]);
  });
});
