// A listing that cannot prove absence never concludes absence (docs/reliability.md, "Facts before
// claims, and checks before effects"), on a service that reads the list request's `cursor` as a
// record OFFSET: the API document calls it a "paging position" (section 4.1), which an offset is.
// It sends no continuation and caps its pages at 50 without saying so; its ids are not 1..N. The
// id the client sends as the cursor (docs/client.md, "guessed cursor") is answered with an empty
// page, which proves nothing: refresh keeps an endpoint it cannot find and warns, import says the
// listing may be incomplete, and the check before create narrows by URL and finds the endpoint
// that exists instead of making a duplicate that can never be deleted.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProviderCore } from "../../src/core/provider-core";
import { listByReading, othersRecords, type CursorReading } from "../support/cursor-readings";
import { TOKEN, captureError } from "../support/helpers";
import { scriptedService, type Stored } from "../support/scripted-service";

const CAP = 50;

describe("a service reading the cursor as an offset, holding more endpoints than one page", () => {
  let service: Awaited<ReturnType<typeof scriptedService>>;
  let records: Stored[];
  let warnings: string[];
  let core: ProviderCore;

  async function start(
    held: Stored[],
    match: "exact" | "partial" = "exact",
    service_: { reading?: CursorReading; filteredCap?: number; pageSize?: number } = {},
  ) {
    records = held;
    const reading = service_.reading ?? "offset";
    const filteredCap = service_.filteredCap === undefined ? {} : { filteredCap: service_.filteredCap };
    service = await scriptedService({
      records,
      onList: listByReading(records, { reading, cap: CAP, match, ...filteredCap }),
    });
    warnings = [];
    core = new ProviderCore({ face: "dynamic", env: {}, notify: () => {}, warn: (m) => warnings.push(m) });
    core.configure({
      values: {
        baseUrl: service.url,
        accessToken: TOKEN,
        ...(service_.pageSize === undefined ? {} : { pageSize: String(service_.pageSize) }),
      },
      describe: (name) => name,
      howToSet: (name) => name,
    });
  }
  beforeEach(() => {
    warnings = [];
  });
  afterEach(async () => {
    await core?.close();
    await service?.close();
  });

  it("refresh of an endpoint renamed and re-pointed on the console keeps it, and warns why", async () => {
    await start(othersRecords(120));
    const { id, state } = await core.create({
      webhookName: "orders",
      webhookUrl: "https://example.com/hooks/orders",
    });
    const ours = records.find((r) => String(r.webhook_id) === id)!;
    // Past the first page of 50: the 121st by id.
    expect(records.filter((r) => r.webhook_id < ours.webhook_id)).toHaveLength(120);
    Object.assign(ours, { webhook_name: "orders-v2", webhook_url: "https://example.com/v2" });
    const read = await core.read(id, state);
    expect(read?.state).toEqual(state);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`could not tell whether webhook endpoint ${id} still exists`));
    expect(warnings[0]).toMatch(/does not page by the record id/);
    expect(warnings[0]).not.toContain(TOKEN);
  });

  it("import of an endpoint past the first page says the listing may be incomplete, never that it does not exist", async () => {
    await start(othersRecords(121));
    const seventieth = records[69]!;
    const error = await captureError(core.read(String(seventieth.webhook_id), undefined));
    const message = (error as Error).message;
    expect(message).toMatch(/cannot prove that it does not exist/);
    expect(message).toMatch(/does not page by the record id/);
    expect(message).toContain(`adoptWebhookId: ${seventieth.webhook_id}`);
  });

  it("the check before create finds an endpoint with the name and URL past the first page of its name: nothing is sent", async () => {
    // The service filters names partially: 60 "orders-N" of another team, then "orders" itself.
    const held = othersRecords(60, 500, 3, "orders");
    const existing = othersRecords(1, 800, 3, "x")[0]!;
    held.push({ ...existing, webhook_name: "orders", webhook_url: "https://example.com/hooks/orders" });
    await start(held, "partial");
    const error = await captureError(
      core.create({ webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" }),
    );
    expect((error as Error).message).toContain(String(existing.webhook_id));
    expect(service.creates()).toBe(0);
    expect(records.filter((r) => r.webhook_name === "orders")).toHaveLength(1);
    // The listing by name could not prove itself complete, so the URL was listed too.
    expect(service.listings().some((body) => body.webhook_url === "https://example.com/hooks/orders")).toBe(
      true,
    );
  });

  // docs/reliability.md, "What this cannot prevent": a service whose searches are capped lower than its
  // full listing can make a listing by name look complete; a page size at most its smallest cap avoids it.
  it("a search capped at 10 below a listing capped at 50, with the page size set to 10: the check before create finds the endpoint", async () => {
    const held = othersRecords(60, 500, 3, "orders");
    const existing = othersRecords(1, 800, 3, "x")[0]!;
    held.push({ ...existing, webhook_name: "orders", webhook_url: "https://example.com/hooks/orders" });
    await start(held, "partial", { reading: "ignored", filteredCap: 10, pageSize: 10 });
    const error = await captureError(
      core.create({ webhookName: "orders", webhookUrl: "https://example.com/hooks/orders" }),
    );
    expect((error as Error).message).toContain(String(existing.webhook_id));
    expect(service.creates()).toBe(0);
  });
});
