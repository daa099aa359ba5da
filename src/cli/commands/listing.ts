import type { ListFilter, ListingEnd, WebhookEndpointRecord, WebhooksClient } from "../../client";
import { recognisableInText } from "../../text";
import { Progress } from "../output/output";

/** The part of the client the commands use: listing. Commands never create. */
export type ListingClient = Pick<WebhooksClient, "listAll">;

/** The endpoints a listing showed, and how it ended: only a complete one proves that an endpoint is not there. */
export interface Listed {
  records: WebhookEndpointRecord[];
  end: ListingEnd;
}

/**
 * Every endpoint matching the filter, each id once, sorted by id, with "listed N endpoints…" on
 * stderr as the pages come in (see {@link Progress}), and how the listing ended. `secrets` (what the
 * command keeps out of what it prints) are kept out of the client's errors too, where they quote the
 * service's own text.
 */
export async function listEndpoints(
  client: ListingClient,
  filter: ListFilter,
  progress: Progress,
  secrets: readonly string[] = [],
): Promise<Listed> {
  const byId = new Map<number, WebhookEndpointRecord>();
  const redact = secrets.filter(recognisableInText);
  let end: ListingEnd = { complete: true };
  try {
    for await (const page of client.listAll(filter, redact.length > 0 ? { redact } : {})) {
      keepFirst(byId, page.records);
      end = page.end ?? end;
      const listed = byId.size;
      progress.update(`listed ${listed} endpoint${listed === 1 ? "" : "s"}…`);
    }
  } finally {
    progress.done();
  }
  return { records: sortedById(byId), end };
}

/** Adds each record whose id `byId` does not hold yet: the first copy of an id listed twice is kept. */
export function keepFirst(
  byId: Map<number, WebhookEndpointRecord>,
  records: Iterable<WebhookEndpointRecord>,
): void {
  for (const record of records) if (!byId.has(record.webhookId)) byId.set(record.webhookId, record);
}

/** The records `byId` holds, sorted by id, as every command shows them. */
export function sortedById(byId: ReadonlyMap<number, WebhookEndpointRecord>): WebhookEndpointRecord[] {
  return [...byId.values()].sort((a, b) => a.webhookId - b.webhookId);
}

/** "the listing may be incomplete (why)", for a listing that did not prove itself complete. */
export function mayBeIncomplete(end: Extract<ListingEnd, { complete: false }>): string {
  return `the service's listing may be incomplete (${end.reason})`;
}
