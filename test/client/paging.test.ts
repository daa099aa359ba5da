import { describe, expect, it } from "vitest";
import { WebhookPagingError, type WebhookEndpointRecord } from "../../src/client";
import {
  MAX_CURSOR_CHARS,
  nextCursor,
  pagesOf,
  readContinuation,
  type PagingLimits,
  type ServicePage,
} from "../../src/client/paging";
import type { Continuation } from "../../src/client/types";

// Paging through a listing whose continuation the API document does not show (section 4.1). The
// expectations are docs/client.md's, "Paging": follow a continuation field if the response has one; stop
// on an empty or short page; never loop on a repeated cursor; cap pages (and records and bytes).

function rec(id: number): WebhookEndpointRecord {
  return {
    webhookId: id,
    webhookName: `n${id}`,
    webhookUrl: `https://example.com/${id}`,
    signSecret: "s",
    creatorId: 1,
    creatorName: "c",
    createTime: 0,
    operatorId: 1,
    operatorName: "c",
    operateTime: 0,
  };
}
const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => rec(from + i));
const TRACE = "ab".repeat(16);
const LIMITS: PagingLimits = { limit: 3, maxPages: 100, maxScanRecords: 1000, maxScanBytes: 1_000_000 };

/** A service as a function of the cursor asked for; every cursor asked is kept. */
function service(
  pages: Record<
    string,
    { records: WebhookEndpointRecord[]; continuation?: Continuation; bytes?: number; traceId?: string }
  >,
) {
  const asked: string[] = [];
  const fetchPage = (cursor: string): Promise<ServicePage> => {
    asked.push(cursor);
    const page = pages[cursor];
    if (page === undefined) throw new Error(`no page at cursor ${JSON.stringify(cursor)}`);
    return Promise.resolve({
      records: page.records,
      continuation: page.continuation ?? {},
      bytes: page.bytes ?? 100,
      traceId: page.traceId ?? TRACE,
    });
  };
  return { fetchPage, asked };
}

async function collect(
  fetchPage: (cursor: string) => Promise<ServicePage>,
  limits: Partial<PagingLimits> = {},
) {
  const pages: ServicePage[] = [];
  let error: WebhookPagingError | undefined;
  try {
    for await (const page of pagesOf(fetchPage, { ...LIMITS, ...limits })) pages.push(page);
  } catch (thrown) {
    error = thrown as WebhookPagingError;
  }
  return { pages, error };
}

describe("reading the continuation a page carries", () => {
  it.each([
    [{ cursor: "abc" }, { cursor: "abc", source: "data.cursor" }],
    [{ next_cursor: "n" }, { cursor: "n", source: "data.next_cursor" }],
    [{ nextCursor: "n" }, { cursor: "n", source: "data.nextCursor" }],
    [{ next_page_token: "t" }, { cursor: "t", source: "data.next_page_token" }],
    [{ nextPageToken: "t" }, { cursor: "t", source: "data.nextPageToken" }],
    [{ next: "x" }, { cursor: "x", source: "data.next" }],
    [{ cursor: 42 }, { cursor: "42", source: "data.cursor" }],
    [{ next_cursor: 2 ** 60 }, { unusable: true, source: "data.next_cursor" }],
    [{ cursor: 1.5 }, { unusable: true, source: "data.cursor" }],
    [{ cursor: "" }, { hasMore: false, source: "data.cursor" }],
    [{ has_more: true }, { hasMore: true, source: "data.has_more" }],
    [{ hasMore: false }, { hasMore: false, source: "data.hasMore" }],
    [{ has_next: true }, { hasMore: true, source: "data.has_next" }],
    [{ hasNext: true }, { hasMore: true, source: "data.hasNext" }],
    // Not a continuation: other types, nothing.
    [{ has_more: "yes", cursor: null, next: { page: 2 } }, {}],
    [
      { cursor: "42", has_more: false },
      { cursor: "42", source: "data.cursor" },
    ],
    [
      { has_more: 1, hasMore: true },
      { hasMore: true, source: "data.hasMore" },
    ],
    [{}, {}],
  ])("%j → %j", (data, expected) => {
    expect(readContinuation(data as Record<string, unknown>)).toEqual(expected);
  });
});

describe("the cursor for the next page", () => {
  it("the server's cursor, even after an empty page (a service that filters after paging)", () => {
    expect(nextCursor([], { cursor: "c2" }, 3)).toBe("c2");
    expect(nextCursor(ids(1, 1), { cursor: "c2" }, 3)).toBe("c2");
  });
  it("none from a cursor too large to read exactly, whatever else the page says", () => {
    expect(nextCursor(ids(1, 3), { unusable: true }, 3)).toBeUndefined();
    expect(nextCursor(ids(1, 3), { unusable: true, hasMore: true }, 3)).toBeUndefined();
  });
  it("with a has-more flag: the last record's id while it says more, none when it says no or the page is empty", () => {
    expect(nextCursor(ids(5, 3), { hasMore: true }, 10)).toBe("7");
    expect(nextCursor(ids(5, 3), { hasMore: false }, 3)).toBeUndefined();
    expect(nextCursor([], { hasMore: true }, 3)).toBeUndefined();
  });
  it("with no continuation: the last id after a full page, none after a short or empty one", () => {
    expect(nextCursor(ids(5, 3), {}, 3)).toBe("7");
    expect(nextCursor(ids(5, 2), {}, 3)).toBeUndefined();
    expect(nextCursor([], {}, 3)).toBeUndefined();
  });
});

describe("every page of a listing", () => {
  it("follows the cursors in order from the first page and stops when none is left", async () => {
    const s = service({
      "": { records: ids(1, 3), continuation: { cursor: "b" } },
      b: { records: ids(4, 3), continuation: { cursor: "c" } },
      c: { records: ids(7, 1) },
    });
    const { pages, error } = await collect(s.fetchPage);
    expect(error).toBeUndefined();
    expect(s.asked).toEqual(["", "b", "c"]);
    expect(pages.flatMap((p) => p.records.map((r) => r.webhookId))).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("an empty page with a cursor goes on; an empty page without one ends the listing", async () => {
    const s = service({ "": { records: [], continuation: { cursor: "b" } }, b: { records: ids(1, 2) } });
    const { pages, error } = await collect(s.fetchPage);
    expect(error).toBeUndefined();
    expect(pages.map((p) => p.records.length)).toEqual([0, 2]);
  });

  it("stops at maxPages with an error naming the cap", async () => {
    let n = 0;
    const endless = () =>
      Promise.resolve<ServicePage>({
        records: ids(++n * 10, 3),
        continuation: { cursor: `c${n}` },
        bytes: 10,
        traceId: TRACE,
      });
    const { pages, error } = await collect(endless, { maxPages: 3 });
    expect(pages).toHaveLength(3);
    expect(error).toBeInstanceOf(WebhookPagingError);
    expect(error!.message).toContain("listing stopped after 3 pages (maxPages)");
    expect(error!.operation).toBe("list");
  });

  it("a cursor the server already returned stops it, the first page's empty cursor included", async () => {
    const s = service({
      "": { records: ids(1, 3), continuation: { cursor: "b" } },
      b: { records: ids(4, 3), continuation: { cursor: "b" } },
    });
    const { pages, error } = await collect(s.fetchPage);
    expect(pages).toHaveLength(2);
    expect(error).toBeInstanceOf(WebhookPagingError);
    expect(error!.message).toContain("a paging cursor it had already returned (page 2)");
    expect(error!.operation).toBe("list");
    expect(error!.traceId).toBe(TRACE);
    const back = service({ "": { records: [], continuation: { cursor: "" } } });
    const again = await collect(back.fetchPage);
    expect(again.error!.message).toContain("already returned (page 1)");
    expect(back.asked).toEqual([""]);
  });

  it("a page that only repeats records already listed stops it (the service ignored the position)", async () => {
    const s = service({
      "": { records: ids(1, 3), continuation: { cursor: "b" } },
      b: { records: ids(1, 3), continuation: { cursor: "c" }, traceId: "" },
    });
    const { pages, error } = await collect(s.fetchPage);
    expect(pages).toHaveLength(1);
    expect(error!.message).toContain("page 2 repeated records already listed");
    expect(error!.operation).toBe("list");
    // No trace id when the page had none.
    expect(error!.traceId).toBeUndefined();
  });

  it("caps records and bytes: reaching a cap is fine, passing it stops the listing", async () => {
    const twoPages = (bytes: number) =>
      service({
        "": { records: ids(1, 3), continuation: { cursor: "b" }, bytes },
        b: { records: ids(4, 2), bytes },
      });
    expect((await collect(twoPages(100).fetchPage, { maxScanRecords: 5 })).error).toBeUndefined();
    const records = await collect(twoPages(100).fetchPage, { maxScanRecords: 4 });
    expect(records.pages).toHaveLength(1);
    expect(records.error!.message).toContain(
      "listing stopped after 5 records and 0 KB (caps: maxScanRecords 4, maxScanBytes 1000000)",
    );
    expect(records.error!.operation).toBe("list");
    expect((await collect(twoPages(1024).fetchPage, { maxScanBytes: 2048 })).error).toBeUndefined();
    const bytes = await collect(twoPages(1024).fetchPage, { maxScanBytes: 2047 });
    expect(bytes.error!.message).toContain("after 5 records and 2 KB");
  });

  it("a cursor longer than a cursor can be stops it; one at the limit is followed", async () => {
    const at = "x".repeat(MAX_CURSOR_CHARS);
    const ok = service({ "": { records: ids(1, 3), continuation: { cursor: at } }, [at]: { records: [] } });
    expect((await collect(ok.fetchPage)).error).toBeUndefined();
    const long = at + "x";
    const tooLong = service({ "": { records: ids(1, 3), continuation: { cursor: long } } });
    const { error } = await collect(tooLong.fetchPage);
    expect(error).toBeInstanceOf(WebhookPagingError);
    expect(error!.message).toContain(`a paging cursor of ${MAX_CURSOR_CHARS + 1} characters (page 1)`);
    expect(error!.operation).toBe("list");
    expect(tooLong.asked).toEqual([""]);
  });

  it("a numeric cursor too large to read exactly stops it before the page is used, naming where it was", async () => {
    const s = service({
      "": { records: ids(1, 3), continuation: { unusable: true, source: "data.next_cursor" } },
    });
    const { pages, error } = await collect(s.fetchPage);
    expect(pages).toHaveLength(0);
    expect(error!.message).toContain(
      "a numeric paging cursor in data.next_cursor too large to be read exactly (page 1)",
    );
    expect(error!.operation).toBe("list");
    expect(error!.traceId).toBe(TRACE);
    const unnamed = service({ "": { records: [], continuation: { unusable: true } } });
    expect((await collect(unnamed.fetchPage)).error!.message).toContain("cursor in its answer too large");
  });
});
