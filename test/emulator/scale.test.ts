// The store at 50,000 records: an exact name filter answers from the index and a create does not
// copy the store. Timings are loose (median of 5 under 200 ms, where a few ms is expected) so
// a busy machine does not make this flaky, yet an O(n) copy per request at this size would show.
import { describe, expect, it } from "vitest";
import { create, emulators, hook, list } from "./helpers";

const start = emulators();
const RECORDS = 50_000;

async function medianMs(times: number, run: () => Promise<void>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const began = performance.now();
    await run();
    samples.push(performance.now() - began);
  }
  return samples.sort((a, b) => a - b)[Math.floor(times / 2)]!;
}

describe("at 50,000 records", () => {
  it("lists by name and creates quickly", async () => {
    const emulator = await start({ requestLogLimit: 100 });
    for (let i = 1; i <= RECORDS; i += 1) emulator.addRecord(hook(i));
    expect(emulator.records()).toHaveLength(RECORDS);

    let matched: unknown[] = [];
    const byName = await medianMs(5, async () => {
      matched = (await list(emulator, { webhook_name: "hook-31337", limit: 10 })).json.data.data;
    });
    expect(matched).toMatchObject([{ webhook_id: 31337, webhook_name: "hook-31337" }]);
    expect(byName).toBeLessThan(200);

    let next = RECORDS;
    const creating = await medianMs(5, async () => {
      next += 1;
      expect((await create(emulator, hook(next))).json.data.webhook_id).toBe(next);
    });
    expect(creating).toBeLessThan(200);

    // Descending pages walk from the newest record, also at this size.
    const newest = (await list(emulator, { limit: 3, ascending: "false" })).json.data;
    expect(newest.data.map((r: { webhook_id: number }) => r.webhook_id)).toEqual([next, next - 1, next - 2]);
    const page = (await list(emulator, { limit: 2, cursor: newest.cursor, ascending: "false" })).json.data;
    expect(page.data.map((r: { webhook_id: number }) => r.webhook_id)).toEqual([next - 3, next - 4]);
  });
});
