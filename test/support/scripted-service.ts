import type { ApiWebhookRecord } from "../../src/api/contract";
import { rawServer } from "./helpers";

/** A documented trace id (32 hexadecimal digits). */
export const TRACE = "0123456789abcdef0123456789abcdef";

/** The record as the API document gives it (section 2). */
export type Stored = ApiWebhookRecord;

export interface ScriptedServiceOptions {
  /** What the service keeps for what it was sent (a rewriting service); as sent by default. */
  store?: (name: string, url: string) => { name: string; url: string };
  /** Answers a create otherwise than by storing it, when it returns an answer. */
  onCreate?: (
    body: { webhook_name: string; webhook_url: string },
    records: Stored[],
  ) => { status: number; body: unknown } | undefined;
  /** Answers a create after storing it (an answer lost or spoiled after the commit), when it returns an answer. */
  afterStore?: (record: Stored) => { status: number; body: unknown } | undefined;
  /** Answers a list request otherwise than by listing, when it returns an answer. */
  onList?: (body: Record<string, unknown>) => { status: number; body: unknown } | undefined;
  /** What the service holds at start. */
  records?: Stored[];
  /** The service's clock (it may run behind or ahead of ours). */
  now?: () => number;
  /** The principal behind the token. */
  creator?: { id: number; name: string };
}

/**
 * A small service written for the tests from the API document, not the emulator: list filters
 * compare the stored value with the filter exactly as sent, one page per listing, every request
 * body kept (`requests`) so a test can see which listings a client made.
 */
export async function scriptedService(options: ScriptedServiceOptions = {}) {
  const records: Stored[] = options.records ?? [];
  const now = options.now ?? Date.now;
  const creator = options.creator ?? { id: 7, name: "pipeline" };
  let next = 1000 + records.length;
  const server = await rawServer((req, text, res) => {
    const body = JSON.parse(text) as Record<string, string>;
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
    };
    if (req.url?.endsWith("/create")) {
      const special = options.onCreate?.(body as { webhook_name: string; webhook_url: string }, records);
      if (special !== undefined) return send(special.status, special.body);
      const stored = options.store?.(body.webhook_name!, body.webhook_url!) ?? {
        name: body.webhook_name!,
        url: body.webhook_url!,
      };
      const time = now();
      const record: Stored = {
        webhook_id: next++,
        webhook_name: stored.name,
        webhook_url: stored.url,
        sign_secret: `whsec_${next}`,
        creator_id: creator.id,
        creator_name: creator.name,
        create_time: time,
        operator_id: creator.id,
        operator_name: creator.name,
        operate_time: time,
      };
      records.push(record);
      const spoiled = options.afterStore?.(record);
      if (spoiled !== undefined) return send(spoiled.status, spoiled.body);
      return send(200, { code: "200", msg: "SUCCESS", trace_id: TRACE, data: record });
    }
    const special = options.onList?.(body);
    if (special !== undefined) return send(special.status, special.body);
    const data = records.filter(
      (r) =>
        (body.webhook_name ? r.webhook_name === body.webhook_name : true) &&
        (body.webhook_url ? r.webhook_url === body.webhook_url : true),
    );
    return send(200, { code: "200", msg: "SUCCESS", trace_id: TRACE, data: { data } });
  });
  /** The body of every list request, in order. */
  const listings = () =>
    server.requests
      .filter((r) => !r.path.endsWith("/create"))
      .map((r) => JSON.parse(r.body) as Record<string, unknown>);
  /** How many create requests were sent. */
  const creates = () => server.requests.filter((r) => r.path.endsWith("/create")).length;
  return { ...server, records, listings, creates };
}
