import type { ListFilter, WebhookEndpointRecord, WebhooksClient } from "../../client";
import { recognisableInText } from "../../text";
import { Progress } from "../output/output";

/** The part of the client the commands use: listing. Commands never create. */
export type ListingClient = Pick<WebhooksClient, "listAll">;

/**
 * Every endpoint matching the filter, each id once, sorted by id, with "listed N endpoints…" on
 * stderr as the pages come in (see {@link Progress}). `secrets` (what the command keeps out of what
 * it prints) are kept out of the client's errors too, where they quote the service's own text.
 */
export async function listEndpoints(
  client: ListingClient,
  filter: ListFilter,
  progress: Progress,
  secrets: readonly string[] = [],
): Promise<WebhookEndpointRecord[]> {
  const byId = new Map<number, WebhookEndpointRecord>();
  const redact = secrets.filter(recognisableInText);
  try {
    for await (const page of client.listAll(filter, redact.length > 0 ? { redact } : {})) {
      for (const record of page.records) if (!byId.has(record.webhookId)) byId.set(record.webhookId, record);
      const listed = byId.size;
      progress.update(`listed ${listed} endpoint${listed === 1 ? "" : "s"}…`);
    }
  } finally {
    progress.done();
  }
  return [...byId.values()].sort((a, b) => a.webhookId - b.webhookId);
}
