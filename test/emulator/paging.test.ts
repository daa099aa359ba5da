import { describe, expect, it } from "vitest";
import { startEmulator, type Emulator, type PagingStyle } from "../../src/emulator/index";
import { type Json, emulators, hook, idsOf, list } from "./helpers";

const start = emulators();

function seed(emulator: Emulator, count: number): void {
  for (let i = 1; i <= count; i += 1) emulator.addRecord(hook(i));
}

/** Walks every page the way the given paging style says to continue; returns the pages' data. */
async function walk(emulator: Emulator, style: PagingStyle, body: Record<string, unknown>): Promise<Json[]> {
  const pages: Json[] = [];
  let cursor = "";
  for (let guard = 0; guard < 20; guard += 1) {
    const reply = await list(emulator, { ...body, cursor });
    expect(reply.json.code).toBe("200");
    const data = reply.json.data;
    pages.push(data);
    if (style === "cursor" || style === "next-cursor") {
      const field = style === "cursor" ? "cursor" : "next_cursor";
      expect(typeof data[field]).toBe("string");
      if (data[field] === "") return pages;
      cursor = data[field];
    } else if (style === "has-more") {
      if (data.has_more === false) return pages;
      cursor = String(data.data.at(-1).webhook_id);
    } else {
      return pages;
    }
  }
  throw new Error("paging did not terminate");
}

const ids = (pages: Json[]): number[] => pages.flatMap((page) => idsOf(page.data));

describe("paging styles", () => {
  it.each(["cursor", "next-cursor"] as const)(
    "%s: walks 3 pages with an opaque continuation",
    async (style) => {
      const emulator = await start({ paging: style });
      seed(emulator, 7);
      const pages = await walk(emulator, style, { limit: 3 });
      expect(pages.map((page) => page.data.length as number)).toEqual([3, 3, 1]);
      expect(ids(pages)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      const field = style === "cursor" ? "cursor" : "next_cursor";
      const other = style === "cursor" ? "next_cursor" : "cursor";
      for (const page of pages.slice(0, -1)) expect(page[field]).not.toMatch(/^\d+$/);
      for (const page of pages) expect(page).not.toHaveProperty(other);
    },
  );

  it("has-more: walks 3 pages continuing from the last webhook_id", async () => {
    const emulator = await start({ paging: "has-more" });
    seed(emulator, 9);
    const pages = await walk(emulator, "has-more", { limit: 3 });
    expect(pages.map((page) => page.has_more as boolean)).toEqual([true, true, false]);
    expect(ids(pages)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect((await list(emulator, { cursor: "c1.abc" })).json.msg).toBe(
      "cursor must be a webhook_id in decimal",
    );
  });

  it("none: only the first page, no continuation field, cursor ignored", async () => {
    const emulator = await start({ profile: "no-paging" });
    seed(emulator, 7);
    const first = (await list(emulator, { limit: 3 })).json.data;
    expect(Object.keys(first)).toEqual(["data"]);
    expect(idsOf(first.data)).toEqual([1, 2, 3]);
    const again = (await list(emulator, { limit: 3, cursor: "anything" })).json.data;
    expect(again).toEqual(first);
  });

  it("page-cap: the first 50 of the filter whatever cursor and limit ask, and no continuation field", async () => {
    const emulator = await start({ profile: "page-cap" });
    seed(emulator, 80);
    for (const asked of [{ limit: 100 }, { limit: 3 }, { limit: 100, cursor: "50" }, {}]) {
      const page = (await list(emulator, asked)).json.data;
      expect(Object.keys(page), JSON.stringify(asked)).toEqual(["data"]);
      expect(idsOf(page.data), JSON.stringify(asked)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    }
  });

  it("pages in descending order and stays consistent when records vanish between pages", async () => {
    const emulator = await start({ paging: "cursor" });
    seed(emulator, 7);
    const first = (await list(emulator, { limit: 3, ascending: false })).json.data;
    expect(idsOf(first.data)).toEqual([7, 6, 5]);
    emulator.removeRecord(4);
    const second = (await list(emulator, { limit: 3, ascending: false, cursor: first.cursor })).json.data;
    expect(idsOf(second.data)).toEqual([3, 2, 1]);
    expect(second.cursor).toBe("");
  });

  it("keeps filters across pages", async () => {
    const emulator = await start({ paging: "next-cursor", filterMatch: "partial" });
    for (let i = 1; i <= 10; i += 1)
      emulator.addRecord({
        webhook_name: i % 2 === 0 ? `even-${i}` : `odd-${i}`,
        webhook_url: `https://e.example/${i}`,
      });
    const pages = await walk(emulator, "next-cursor", { limit: 2, webhook_name: "even" });
    expect(ids(pages)).toEqual([2, 4, 6, 8, 10]);
    expect(pages).toHaveLength(3);
  });
});

describe("page size", () => {
  it("uses defaultPageSize when limit is missing or 0", async () => {
    const emulator = await start({ defaultPageSize: 4 });
    seed(emulator, 10);
    expect((await list(emulator, {})).json.data.data).toHaveLength(4);
    expect((await list(emulator, { limit: 0 })).json.data.data).toHaveLength(4);
  });

  it("clamps or refuses a limit above maxPageSize", async () => {
    const clamp = await start({ profile: "small-pages" });
    seed(clamp, 12);
    expect((await list(clamp, {})).json.data.data).toHaveLength(5);
    expect((await list(clamp, { limit: 50 })).json.data.data).toHaveLength(10);
    const strict = await start({ maxPageSize: 10, limitAboveMax: "error" });
    const refused = await list(strict, { limit: 11 });
    expect(refused.status).toBe(400);
    expect(refused.json.msg).toBe("limit must be at most 10");
    expect((await list(strict, { limit: 10 })).status).toBe(200);
  });
});

describe("filters", () => {
  async function filtered(emulator: Emulator, body: Record<string, unknown>): Promise<number[]> {
    const reply = await list(emulator, body);
    expect(reply.json.code).toBe("200");
    return idsOf(reply.json.data.data);
  }

  async function seeded(filterMatch: "exact" | "partial" | "ignored"): Promise<Emulator> {
    const emulator = await start({ filterMatch });
    emulator.addRecord({ webhook_name: "orders", webhook_url: "https://a.example/orders" });
    emulator.addRecord({ webhook_name: "orders-eu", webhook_url: "https://b.example/orders" });
    emulator.addRecord({ webhook_name: "Orders", webhook_url: "https://a.example/ORDERS" });
    return emulator;
  }

  it("exact: equal strings only", async () => {
    const emulator = await seeded("exact");
    expect(await filtered(emulator, { webhook_name: "orders" })).toEqual([1]);
    expect(await filtered(emulator, { webhook_url: "https://b.example/orders" })).toEqual([2]);
    expect(await filtered(emulator, { webhook_name: "order" })).toEqual([]);
    expect(await filtered(emulator, { webhook_name: "", webhook_url: "" })).toEqual([1, 2, 3]);
  });

  it("partial: case-sensitive substring", async () => {
    const emulator = await seeded("partial");
    expect(await filtered(emulator, { webhook_name: "order" })).toEqual([1, 2]);
    expect(await filtered(emulator, { webhook_url: "a.example" })).toEqual([1, 3]);
    expect(await filtered(emulator, { webhook_name: "orders", webhook_url: "b.example" })).toEqual([2]);
  });

  it("ignored: filters accepted and not applied", async () => {
    const emulator = await seeded("ignored");
    expect(await filtered(emulator, { webhook_name: "nothing-like-this" })).toEqual([1, 2, 3]);
  });
});

describe("ascending", () => {
  const cases: [string, unknown, "asc" | "desc" | 400][] = [
    ["true-false-string", "true", "asc"],
    ["true-false-string", "false", "desc"],
    ["true-false-string", true, 400],
    ["true-false-string", "asc", 400],
    ["true-false-string", "", 400],
    ["asc-desc", "asc", "asc"],
    ["asc-desc", "desc", "desc"],
    ["asc-desc", "true", 400],
    ["any", true, "asc"],
    ["any", false, "desc"],
    ["any", "false", "desc"],
    ["any", "DESC", "desc"],
    ["any", "sideways", "asc"],
    ["any", 1, 400],
    ["ignored", "false", "asc"],
    ["ignored", 42, "asc"],
  ];

  it.each(cases)("%s with %j gives %s", async (mode, ascending, expected) => {
    const emulator = await start({ ascending: mode as "any" });
    seed(emulator, 3);
    const reply = await list(emulator, { ascending });
    if (expected === 400) {
      expect(reply.status).toBe(400);
      expect(reply.json.msg).toMatch(/^ascending must be/);
      return;
    }
    const order = idsOf(reply.json.data.data);
    expect(order).toEqual(expected === "asc" ? [1, 2, 3] : [3, 2, 1]);
  });

  it("uses defaultOrder when ascending is missing or unknown", async () => {
    const emulator = await start({ defaultOrder: "desc" });
    seed(emulator, 3);
    expect(idsOf((await list(emulator, {})).json.data.data)).toEqual([3, 2, 1]);
    expect((await list(emulator, { ascending: "maybe" })).json.data.data[0].webhook_id).toBe(3);
  });
});

describe("required list fields", () => {
  const full = { cursor: "", limit: 10, webhook_name: "", webhook_url: "", ascending: "true" };

  it("refuses a list missing a required field, null counting as missing", async () => {
    const emulator = await start({ profile: "strict-required" });
    expect((await list(emulator, full)).status).toBe(200);
    const { cursor: _cursor, ...noCursor } = full;
    expect((await list(emulator, noCursor)).json).toMatchObject({ code: "40001", msg: "cursor is required" });
    expect((await list(emulator, { ...full, webhook_url: null })).json.msg).toBe("webhook_url is required");
  });

  it("requires nothing by default", async () => {
    const emulator = await start();
    expect((await list(emulator, {})).status).toBe(200);
  });
});

describe("profiles", () => {
  it("applies a profile under explicit options", async () => {
    const emulator = await start({ profile: "has-more", maxPageSize: 7 });
    expect(emulator.options()).toMatchObject({
      paging: "has-more",
      filterMatch: "exact",
      defaultPageSize: 5,
      maxPageSize: 7,
    });
  });

  it("refuses unknown profiles and options", async () => {
    await expect(startEmulator({ profile: "nope" })).rejects.toThrow(/unknown profile "nope"/);
    await expect(startEmulator({ paging: "pages" as "none" })).rejects.toThrow(
      /options\.paging must be one of/,
    );
    await expect(startEmulator({ limitAbove: "clamp" } as object)).rejects.toThrow(/not an emulator option/);
  });
});
