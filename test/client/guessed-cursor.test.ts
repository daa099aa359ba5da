// A paging cursor the client makes up proves nothing until the service shows it understands it.
// The API document calls `cursor` a "paging position" and does not show the continuation of a
// list answer (section 4.1). docs/client.md, "Paging" and "Whether a listing is complete": with no
// continuation, the client sends the last record's id as the cursor, and an end the service gives in
// answer to it (an empty page, a shorter page) proves the listing complete only once the service has
// shown it reads that id as "after this id": once per client, the records after the id of the
// record before the last one of that page are asked for, and must start with that page's last
// record. Anything else leaves the listing possibly incomplete, saying the service does not page
// by the record id. Each service below is a raw node:http server holding 121 endpoints whose ids
// are not 1..N, answering with no continuation field.
import { afterEach, describe, expect, it } from "vitest";
import { WebhooksClient, type WebhooksClientOptions } from "../../src/client";
import {
  CURSOR_READINGS,
  listByReading,
  othersRecords,
  type CursorReading,
} from "../support/cursor-readings";
import { TOKEN } from "../support/helpers";
import { scriptedService } from "../support/scripted-service";

const HELD = 121;
const PAGE = 50;

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers) await close();
  closers = [];
});

async function serviceReading(reading: CursorReading, options: { cap?: number; count?: number } = {}) {
  const records = othersRecords(options.count ?? HELD);
  const service = await scriptedService({
    records,
    onList: listByReading(records, { reading, ...(options.cap === undefined ? {} : { cap: options.cap }) }),
  });
  closers.push(() => service.close());
  return service;
}

function clientOf(url: string, options: Partial<WebhooksClientOptions> = {}) {
  const client = new WebhooksClient({
    baseUrl: url,
    accessToken: TOKEN,
    pageSize: PAGE,
    maxRetries: 0,
    ...options,
  });
  closers.push(() => client.close());
  return client;
}

describe("a service that sends no continuation, by what it makes of the cursor", () => {
  it.each(CURSOR_READINGS)(
    "reading the cursor as %s: the listing is complete only when it means after this id",
    async (reading) => {
      const service = await serviceReading(reading);
      const { records, end } = await clientOf(service.url).scan();
      if (reading === "after-id") {
        expect(end).toEqual({ complete: true });
        expect(records.map((r) => r.webhookId)).toEqual(service.records.map((r) => r.webhook_id));
      } else {
        expect(end.complete).toBe(false);
        expect(records.length).toBeLessThan(HELD);
      }
      if (reading === "offset" || reading === "page-number") {
        expect(end.complete === false && end.reason).toMatch(/does not page by the record id/);
      }
      if (reading === "ignored")
        expect(end.complete === false && end.reason).toMatch(/ignores the paging position/);
    },
  );

  it("an offset reading: 50 listed of 121 is never called complete, and the check asked for what follows the 49th", async () => {
    const service = await serviceReading("offset");
    const { records, end } = await clientOf(service.url).scan();
    expect(records).toHaveLength(PAGE);
    expect(end.complete).toBe(false);
    const ids = service.records.map((r) => r.webhook_id);
    // The first page, the last id of it sent as the cursor (answered with nothing), then the check:
    // the id before the last one, whose answer must start with the page's last record.
    expect(service.listings().map((body) => body.cursor)).toEqual(["", String(ids[49]), String(ids[48])]);
    expect(end.complete === false && end.reason).toContain(
      `asked for the records after endpoint ${ids[48]}, it answered with an empty page, not endpoint ${ids[49]}`,
    );
  });

  it("after this id, in either order: complete, and the check is made once per client, not per listing", async () => {
    for (const ascending of ["true", "false"]) {
      const service = await serviceReading("after-id");
      const client = clientOf(service.url, { ascending });
      const first = await client.scan();
      expect(first.end).toEqual({ complete: true });
      expect(first.records).toHaveLength(HELD);
      // 3 pages (50, 50, 21), then the check.
      expect(service.listings()).toHaveLength(4);
      const second = await client.scan();
      expect(second.end).toEqual({ complete: true });
      expect(service.listings()).toHaveLength(4 + 3);
    }
  });

  it("a service capping its pages at 50 without saying so, whatever limit asks, reading the cursor as an offset: incomplete", async () => {
    const service = await serviceReading("offset", { cap: PAGE });
    const { records, end } = await clientOf(service.url, { pageSize: 100 }).scan();
    expect(records).toHaveLength(PAGE);
    expect(end.complete === false && end.reason).toMatch(/does not page by the record id/);
  });

  it("a page of one record gives nothing to check with: possibly incomplete, with no check sent", async () => {
    const service = await serviceReading("offset", { count: 1 });
    const { records, end } = await clientOf(service.url).scan();
    expect(records).toHaveLength(1);
    expect(end.complete === false && end.reason).toMatch(/was not shown to page by the record id/);
    expect(service.listings()).toHaveLength(2);
  });

  it("a check the service fails leaves the listing possibly incomplete, saying why", async () => {
    const records = othersRecords(HELD);
    const byId = listByReading(records, { reading: "after-id" });
    let lists = 0;
    const service = await scriptedService({
      records,
      // Pages 1-3 as an after-id service, then the check refused.
      onList: (body) =>
        ++lists <= 3 ? byId(body) : { status: 400, body: { code: "400", msg: "bad cursor" } },
    });
    closers.push(() => service.close());
    const { end } = await clientOf(service.url).scan();
    expect(end.complete).toBe(false);
    expect(end.complete === false && end.reason).toMatch(/the request that checks it failed/);
  });
});
