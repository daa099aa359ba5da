import { describe, expect, it } from "vitest";
import {
  WebhookAbortError,
  WebhookAuthError,
  WebhookPagingError,
  WebhookRequestRefusedError,
  type WebhookEndpointRecord,
} from "../../src/client";
import {
  MAX_CURSOR_CHARS,
  nextCursor,
  oppositeOrder,
  pagesOf,
  readContinuation,
  type ListedPage,
  type PagingLimits,
  type ServicePage,
} from "../../src/client/paging";
import type { Continuation } from "../../src/client/types";

// Paging through a listing whose continuation the API document does not show (section 4.1), nor
// its page size limits (section 8). The expectations are docs/client.md's paging rules: follow a
// continuation field if the response has one; without one, an empty page, or one shorter than a
// page the service was seen to send, ends the listing complete; never loop on a repeated cursor;
// cap pages (and records and bytes); a listing that cannot prove itself complete says so.

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
const LIMITS: Omit<PagingLimits, "reach"> = {
  limit: 3,
  maxPages: 100,
  maxScanRecords: 1000,
  maxScanBytes: 1_000_000,
};

/**
 * A service as a function of the cursor asked for; every cursor asked is kept, and `reach` is the
 * most records it sent in one page (what the client learns from the pages it fetched).
 */
function service(
  pages: Record<
    string,
    | { records: WebhookEndpointRecord[]; continuation?: Continuation; bytes?: number; traceId?: string }
    | Error
  >,
) {
  const asked: string[] = [];
  let reach = 0;
  const fetchPage = (cursor: string): Promise<ServicePage> => {
    asked.push(cursor);
    const page = pages[cursor];
    if (page === undefined) throw new Error(`no page at cursor ${JSON.stringify(cursor)}`);
    if (page instanceof Error) return Promise.reject(page);
    reach = Math.max(reach, page.records.length);
    return Promise.resolve({
      records: page.records,
      continuation: page.continuation ?? {},
      bytes: page.bytes ?? 100,
      traceId: page.traceId ?? TRACE,
    });
  };
  return { fetchPage, asked, reach: () => reach, raise: (to: number) => (reach = Math.max(reach, to)) };
}

async function collect(
  fetchPage: ((cursor: string) => Promise<ServicePage>) | ReturnType<typeof service>,
  limits: Partial<PagingLimits> = {},
) {
  const fetch = typeof fetchPage === "function" ? fetchPage : fetchPage.fetchPage;
  const reach = typeof fetchPage === "function" ? () => 0 : fetchPage.reach;
  const pages: ListedPage[] = [];
  let error: WebhookPagingError | undefined;
  try {
    for await (const page of pagesOf(fetch, { ...LIMITS, reach, ...limits })) pages.push(page);
  } catch (thrown) {
    error = thrown as WebhookPagingError;
  }
  return { pages, error, end: pages.at(-1)?.end };
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
    expect(nextCursor([], { cursor: "c2" }, 3, 0)).toBe("c2");
    expect(nextCursor(ids(1, 1), { cursor: "c2" }, 3, 50)).toBe("c2");
  });
  it("none from a cursor too large to read exactly, whatever else the page says", () => {
    expect(nextCursor(ids(1, 3), { unusable: true }, 3, 3)).toBeUndefined();
    expect(nextCursor(ids(1, 3), { unusable: true, hasMore: true }, 3, 3)).toBeUndefined();
  });
  it("with a has-more flag: the last record's id while it says more, none when it says no or the page is empty", () => {
    expect(nextCursor(ids(5, 3), { hasMore: true }, 10, 3)).toBe("7");
    expect(nextCursor(ids(5, 3), { hasMore: false }, 3, 3)).toBeUndefined();
    expect(nextCursor([], { hasMore: true }, 3, 3)).toBeUndefined();
  });
  it("with no continuation: the last id after a full page, none after an empty one", () => {
    expect(nextCursor(ids(5, 3), {}, 3, 3)).toBe("7");
    expect(nextCursor([], {}, 3, 0)).toBeUndefined();
  });
  it("with no continuation, a short page ends the listing only when the service was seen to send a longer one", () => {
    // A page of 2 when 3 were asked for: the service's silent cap may be 2.
    expect(nextCursor(ids(5, 2), {}, 3, 2)).toBe("6");
    // It was seen to send 3 in a page: 2 is not its cap, so nothing follows.
    expect(nextCursor(ids(5, 2), {}, 3, 3)).toBeUndefined();
    // Cap 50, limit 100: a page of 50 is no proof.
    expect(nextCursor(ids(1, 50), {}, 100, 50)).toBe("50");
  });
});

describe("every page of a listing", () => {
  it("follows the cursors in order from the first page and stops when none is left", async () => {
    const s = service({
      "": { records: ids(1, 3), continuation: { cursor: "b" } },
      b: { records: ids(4, 3), continuation: { cursor: "c" } },
      c: { records: ids(7, 1) },
    });
    const { pages, error } = await collect(s);
    expect(error).toBeUndefined();
    expect(s.asked).toEqual(["", "b", "c"]);
    expect(pages.flatMap((p) => p.records.map((r) => r.webhookId))).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("an empty page with a cursor goes on; an empty page without one ends the listing", async () => {
    const s = service({
      "": { records: [], continuation: { cursor: "b" } },
      b: { records: ids(1, 3), continuation: { cursor: "c" } },
      c: { records: [] },
    });
    const { pages, error, end } = await collect(s);
    expect(error).toBeUndefined();
    expect(pages.map((p) => p.records.length)).toEqual([0, 3, 0]);
    expect(end).toEqual({ complete: true });
    expect(pages.map((p) => p.end)).toEqual([undefined, undefined, { complete: true }]);
  });

  it("a listing the service's continuation ends is complete, with no request after it", async () => {
    const byCursor = service({
      "": { records: ids(1, 2), continuation: { cursor: "b" } },
      b: { records: ids(3, 1), continuation: { hasMore: false } },
    });
    expect((await collect(byCursor)).end).toEqual({ complete: true });
    expect(byCursor.asked).toEqual(["", "b"]);
    const byFlag = service({ "": { records: ids(1, 2), continuation: { hasMore: false } } });
    expect((await collect(byFlag)).end).toEqual({ complete: true });
    expect(byFlag.asked).toEqual([""]);
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

  it("a cursor the server already returned ends it, possibly incomplete, the first page's empty cursor included", async () => {
    const s = service({
      "": { records: ids(1, 3), continuation: { cursor: "b" } },
      b: { records: ids(4, 3), continuation: { cursor: "b" } },
    });
    const { pages, error, end } = await collect(s);
    expect(error).toBeUndefined();
    expect(pages).toHaveLength(2);
    expect(s.asked).toEqual(["", "b"]);
    expect(end).toEqual({
      complete: false,
      reason: expect.stringContaining("a paging cursor it had already returned (page 2)"),
    });
    const back = service({ "": { records: [], continuation: { cursor: "" } } });
    const again = await collect(back);
    expect(again.end).toEqual({
      complete: false,
      reason: expect.stringContaining("already returned (page 1)"),
    });
    expect(back.asked).toEqual([""]);
  });

  it("a page that only repeats records already listed ends it, possibly incomplete (the service ignored the position)", async () => {
    const s = service({
      "": { records: ids(1, 3), continuation: { cursor: "b" } },
      b: { records: ids(1, 3), continuation: { cursor: "c" }, traceId: "" },
    });
    const { pages, error, end } = await collect(s);
    expect(error).toBeUndefined();
    expect(pages).toHaveLength(2);
    expect(s.asked).toEqual(["", "b"]);
    expect(end).toEqual({
      complete: false,
      reason: expect.stringContaining("page 2 only repeated records already listed"),
    });
  });

  it("caps records and bytes: reaching a cap is fine, passing it stops the listing", async () => {
    const twoPages = (bytes: number) =>
      service({
        "": { records: ids(1, 3), continuation: { cursor: "b" }, bytes },
        b: { records: ids(4, 2), bytes },
      });
    expect((await collect(twoPages(100), { maxScanRecords: 5 })).error).toBeUndefined();
    const records = await collect(twoPages(100), { maxScanRecords: 4 });
    expect(records.pages).toHaveLength(1);
    expect(records.error!.message).toContain(
      "listing stopped after 5 records and 0 KB (caps: maxScanRecords 4, maxScanBytes 1000000)",
    );
    expect(records.error!.operation).toBe("list");
    expect((await collect(twoPages(1024), { maxScanBytes: 2048 })).error).toBeUndefined();
    const bytes = await collect(twoPages(1024), { maxScanBytes: 2047 });
    expect(bytes.error!.message).toContain("after 5 records and 2 KB");
  });

  it("a cap passed on a page without a trace id gives an error without one (docs/client.md: only the documented form)", async () => {
    const s = service({
      "": { records: ids(1, 3), continuation: { cursor: "b" }, traceId: "" },
      b: { records: ids(4, 3), traceId: "" },
    });
    const { error } = await collect(s, { maxScanRecords: 4 });
    expect(error).toBeInstanceOf(WebhookPagingError);
    expect(error!.traceId).toBeUndefined();
  });

  it("a cursor longer than a cursor can be stops it; one at the limit is followed", async () => {
    const at = "x".repeat(MAX_CURSOR_CHARS);
    const ok = service({ "": { records: ids(1, 3), continuation: { cursor: at } }, [at]: { records: [] } });
    expect((await collect(ok)).error).toBeUndefined();
    const long = at + "x";
    const tooLong = service({ "": { records: ids(1, 3), continuation: { cursor: long } } });
    const { error } = await collect(tooLong);
    expect(error).toBeInstanceOf(WebhookPagingError);
    expect(error!.message).toContain(`a paging cursor of ${MAX_CURSOR_CHARS + 1} characters (page 1)`);
    expect(error!.operation).toBe("list");
    expect(tooLong.asked).toEqual([""]);
  });

  it("a numeric cursor too large to read exactly stops it before the page is used, naming where it was", async () => {
    const s = service({
      "": { records: ids(1, 3), continuation: { unusable: true, source: "data.next_cursor" } },
    });
    const { pages, error } = await collect(s);
    expect(pages).toHaveLength(0);
    expect(error!.message).toContain(
      "a numeric paging cursor in data.next_cursor too large to be read exactly (page 1)",
    );
    expect(error!.operation).toBe("list");
    expect(error!.traceId).toBe(TRACE);
    const unnamed = service({ "": { records: [], continuation: { unusable: true } } });
    expect((await collect(unnamed)).error!.message).toContain("cursor in its answer too large");
  });
});

describe("a service that sends no continuation: only a listing that proves itself complete says so", () => {
  // A silent page cap: 80 records, at most 50 a page whatever `limit` asks, the paging position ignored.
  const capped = () => service({ "": { records: ids(1, 50) }, "50": { records: ids(1, 50) } });

  it("a page as large as the service's cap, with no way to ask for more, ends the listing possibly incomplete", async () => {
    const s = capped();
    const { pages, error, end } = await collect(s, { limit: 100 });
    expect(error).toBeUndefined();
    // The first page, then one request for what follows its last id, which only repeats it.
    expect(s.asked).toEqual(["", "50"]);
    expect(pages.map((p) => p.records.length)).toEqual([50, 50]);
    expect(pages[0]!.next).toBe("50");
    expect(end).toEqual({ complete: false, reason: expect.stringContaining("ignores the paging position") });
    expect(end).toEqual({ complete: false, reason: expect.stringContaining("cap its pages at 50") });
  });

  it("a full page whose next page only repeats it is possibly incomplete, whatever the service was seen to send", async () => {
    const s = service({ "": { records: ids(1, 3) }, "3": { records: ids(1, 3) } });
    expect((await collect(s, { limit: 3 })).end).toMatchObject({ complete: false });
  });

  it("a short page after which the last id brings new records: the service pages that way, and the listing goes on to its end", async () => {
    // The end came in answer to an id sent as the cursor: one request checks the service reads it as
    // "after this id" (after 3 comes 4, the last record of the page the id 4 came from).
    const s = service({
      "": { records: ids(1, 2) },
      "2": { records: ids(3, 2) },
      "4": { records: [] },
      "3": { records: ids(4, 1) },
    });
    const { pages, end } = await collect(s, { limit: 10 });
    expect(s.asked).toEqual(["", "2", "4", "3"]);
    expect(pages.flatMap((p) => p.records.map((r) => r.webhookId))).toEqual([1, 2, 3, 4]);
    expect(end).toEqual({ complete: true });
  });

  it("a short page shorter than one the service was seen to send ends the listing complete, with no request after it", async () => {
    const s = service({ "": { records: ids(1, 2) } });
    s.raise(50);
    const { end } = await collect(s, { limit: 100 });
    expect(s.asked).toEqual([""]);
    expect(end).toEqual({ complete: true });
  });

  it("a short page whose next page only repeats it: complete once a larger page is learnt from the service, not before", async () => {
    const pages = { "": { records: ids(7, 1) }, "7": { records: ids(7, 1) } };
    const unlearnt = service(pages);
    expect((await collect(unlearnt, { limit: 100 })).end).toMatchObject({ complete: false });
    const learnt = service(pages);
    let learnCalls = 0;
    const { end } = await collect(learnt, {
      limit: 100,
      learnReach: () => {
        learnCalls++;
        learnt.raise(50);
        return Promise.resolve();
      },
    });
    expect(learnCalls).toBe(1);
    expect(end).toEqual({ complete: true });
    // Nothing larger to learn: still unproven.
    const small = service(pages);
    expect((await collect(small, { limit: 100, learnReach: () => Promise.resolve() })).end).toMatchObject({
      complete: false,
    });
  });

  it("a short page whose next page is empty ends the listing complete, once the service shows it pages by the record id", async () => {
    const s = service({ "": { records: ids(1, 2) }, "2": { records: [] }, "1": { records: ids(2, 1) } });
    expect((await collect(s, { limit: 10 })).end).toEqual({ complete: true });
    expect(s.asked).toEqual(["", "2", "1"]);
  });

  it("a failed request after a short page is no proof: the listing ends possibly incomplete, saying why", async () => {
    const s = service({
      "": { records: ids(1, 2) },
      "2": new WebhookRequestRefusedError("list was refused by the service (HTTP 400)", { status: 400 }),
    });
    const { pages, error, end } = await collect(s, { limit: 10 });
    expect(error).toBeUndefined();
    expect(pages.map((p) => p.records.length)).toEqual([2, 0]);
    expect(end).toEqual({
      complete: false,
      reason: expect.stringContaining("list was refused by the service (HTTP 400)"),
    });
  });

  it("a cancelled or refused-token request after a short page is not swallowed", async () => {
    for (const failure of [
      new WebhookAbortError("list request was cancelled by the caller"),
      new WebhookAuthError("the access token was not accepted", { status: 401 }),
    ]) {
      const s = service({ "": { records: ids(1, 2) }, "2": failure });
      expect((await collect(s, { limit: 10 })).error).toBe(failure);
    }
  });

  it("a short page reached by the service's own cursor is no probe: its repetition proves nothing, and its failure fails the listing", async () => {
    // The service's cursor says more follow, so the short page that cursor brought was not the end
    // of anything the client guessed at: only a probe's short page can prove completeness.
    const repeating = service({
      "": { records: ids(1, 3), continuation: { cursor: "b" } },
      b: { records: ids(4, 2), continuation: { cursor: "c" } },
      c: { records: ids(4, 2), continuation: { cursor: "d" } },
    });
    const { end, error } = await collect(repeating, { limit: 3 });
    expect(error).toBeUndefined();
    expect(repeating.asked).toEqual(["", "b", "c"]);
    expect(end).toEqual({
      complete: false,
      reason: expect.stringContaining("page 3 only repeated records already listed"),
    });
    const failure = new WebhookRequestRefusedError("list was refused by the service (HTTP 400)", {
      status: 400,
    });
    const failing = service({ "": { records: ids(1, 3), continuation: { cursor: "b" } }, b: failure });
    expect((await collect(failing, { limit: 3 })).error).toBe(failure);
  });

  it("likewise a page a has-more flag continues from, and a full page: neither is a probe", async () => {
    const failure = () =>
      new WebhookRequestRefusedError("list was refused by the service (HTTP 400)", { status: 400 });
    // A has-more flag said more follow after a short page: the page after it repeating that page
    // proves nothing, and a failure there fails the listing.
    const flagged = service({
      "": { records: ids(1, 2), continuation: { hasMore: true } },
      "2": { records: ids(1, 2), continuation: { hasMore: true } },
    });
    flagged.raise(3);
    expect((await collect(flagged, { limit: 3 })).end).toMatchObject({ complete: false });
    const flaggedFailure = failure();
    const flaggedFailing = service({
      "": { records: ids(1, 2), continuation: { hasMore: true } },
      "2": flaggedFailure,
    });
    flaggedFailing.raise(3);
    expect((await collect(flaggedFailing, { limit: 3 })).error).toBe(flaggedFailure);
    // No continuation, a page as large as the limit: the listing continues past its last id, and
    // that request failing fails the listing.
    const fullFailure = failure();
    const full = service({ "": { records: ids(1, 3) }, "3": fullFailure });
    expect((await collect(full, { limit: 3 })).error).toBe(fullFailure);
  });

  it("a service that sends a continuation pays no request to learn its page size (docs/client.md)", async () => {
    let learnCalls = 0;
    const learnReach = () => {
      learnCalls++;
      return Promise.resolve();
    };
    const repeating = service({
      "": { records: ids(1, 2), continuation: { cursor: "b" } },
      b: { records: ids(1, 2), continuation: { cursor: "c" } },
    });
    expect((await collect(repeating, { limit: 3, learnReach })).end).toMatchObject({ complete: false });
    expect(learnCalls).toBe(0);
  });

  it("a has-more flag on an empty page gives nothing to continue from: possibly incomplete", async () => {
    const s = service({ "": { records: [], continuation: { hasMore: true } } });
    expect((await collect(s)).end).toMatchObject({
      complete: false,
      reason: expect.stringContaining("has-more"),
    });
  });
});

describe("the other order, in the vocabulary the service was given", () => {
  // docs/configuration.md, `ascending`: the opposite of `true`, `asc`, `ascending`, `1` is `false`,
  // `desc`, `descending`, `0`, and back; docs/client.md: "in the same vocabulary", and only when
  // that vocabulary is known.
  it.each([
    ["true", "false"],
    ["false", "true"],
    ["asc", "desc"],
    ["desc", "asc"],
    ["ascending", "descending"],
    ["descending", "ascending"],
    ["1", "0"],
    ["0", "1"],
    // A service that spells its values in capitals gets the other one in capitals.
    ["ASC", "DESC"],
    ["TRUE", "FALSE"],
    ["DESCENDING", "ASCENDING"],
  ])("%s -> %s", (ascending, opposite) => {
    expect(oppositeOrder(ascending)).toBe(opposite);
  });
  it.each(["upwards", "UPWARDS", "", "yes"])("%j: unknown, no other order", (ascending) => {
    expect(oppositeOrder(ascending)).toBeUndefined();
  });
});

describe("an end given in answer to a guessed cursor (the last record's id, which the document does not define)", () => {
  const memory = () => {
    let confirmed = false;
    return { confirmed: () => confirmed, confirm: () => (confirmed = true) };
  };

  it("after a has-more flag: has_more false proves the end only once the service shows it pages by the record id", async () => {
    const pages = {
      "": { records: ids(1, 3), continuation: { hasMore: true } },
      "3": { records: [], continuation: { hasMore: false } },
    };
    const byId = service({ ...pages, "2": { records: ids(3, 1) } });
    const idPaging = memory();
    expect((await collect(byId, { idPaging })).end).toEqual({ complete: true });
    expect(byId.asked).toEqual(["", "3", "2"]);
    expect(idPaging.confirmed()).toBe(true);
    // Remembered: the next listing of the same client asks no check.
    const again = service(pages);
    expect((await collect(again, { idPaging })).end).toEqual({ complete: true });
    expect(again.asked).toEqual(["", "3"]);
    // An offset service: the id 2 is past its 3 records.
    const byOffset = service({ ...pages, "2": { records: [] } });
    const offsetPaging = memory();
    expect((await collect(byOffset, { idPaging: offsetPaging })).end).toEqual({
      complete: false,
      reason: expect.stringContaining("does not page by the record id"),
    });
    expect(offsetPaging.confirmed()).toBe(false);
  });

  it("in a descending order too: the check's answer must start with the page's last record, nothing else", async () => {
    const down = [rec(9), rec(7), rec(4)];
    const byId = service({ "": { records: down }, "4": { records: [] }, "7": { records: [rec(4)] } });
    expect((await collect(byId)).end).toEqual({ complete: true });
    expect(byId.asked).toEqual(["", "4", "7"]);
    const other = service({
      "": { records: down },
      "4": { records: [] },
      "7": { records: [rec(9), rec(4)] },
    });
    expect((await collect(other)).end).toMatchObject({ complete: false });
  });

  it("a cancelled check is not swallowed", async () => {
    const failure = new WebhookAbortError("list request was cancelled by the caller");
    const s = service({ "": { records: ids(1, 3) }, "3": { records: [] }, "2": failure });
    expect((await collect(s)).error).toBe(failure);
  });

  it("a probe of the first page answered with nothing needs no check when that page is shorter than a page learnt since", async () => {
    const s = service({ "": { records: ids(7, 1) }, "7": { records: [] } });
    const { end } = await collect(s, {
      limit: 100,
      learnReach: () => {
        s.raise(50);
        return Promise.resolve();
      },
    });
    expect(end).toEqual({ complete: true });
    expect(s.asked).toEqual(["", "7"]);
  });
});
