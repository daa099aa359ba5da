import type { ListFilter, WebhookEndpointRecord } from "../client";
import { listEndpoints, mayBeIncomplete, type ListingClient } from "./listing";
import {
  MAX_CELL,
  Progress,
  cell,
  hideSecretFields,
  isoTime,
  jsonText,
  principal,
  recordView,
  table,
  type SecretFields,
  type Sink,
} from "./output";

/**
 * `webhooks list`: the endpoints on the service, sorted by id. Filters match exactly by default
 * (the client's `match: "exact"`: the same name and URL up to the forms a service may store);
 * `--match service` shows whatever the service's own filter returns (it may match partially).
 * `signSecret` is shown only with `--show-secrets`.
 */
export interface ListOptions {
  name?: string | undefined;
  url?: string | undefined;
  match: "exact" | "service";
  json: boolean;
  showSecrets: boolean;
  progress: boolean;
  /** Scrubbed from everything shown (the token, the stack's secret values). */
  secrets?: readonly string[];
  /** Fields a stack's state holds secret, per endpoint: shown as `[secret]`. */
  secretFields?: SecretFields;
}

export const LIST_USAGE = `Usage: webhooks list [--name N] [--url U] [--match exact|service] [--json] [--show-secrets]

Lists the endpoints on the service, sorted by id: id, name, URL, creator, created, last operated.
The table shows characters a terminal would hide (zero-width, bidirectional, control characters,
noncharacters) as escapes such as \\u200b, and a backslash as \\\\: names that differ only
in such characters never look alike.
  --name N            only endpoints with this name
  --url U             only endpoints with this URL
  --match exact       (default) the same name/URL, up to the forms a service may store
                      (surrounding white space, Unicode form; case of scheme and host, one trailing slash)
  --match service     whatever the service's own filter returns (it may match partially)
  --json              JSON for scripts: {"endpoints": [records], "complete": true|false}, camelCase
                      record fields, the exact text with hidden characters as \\u escapes and the
                      access token replaced by [REDACTED]; "complete": false (with
                      "incompleteReason") when the service's listing may hold more than it showed
  --show-secrets      include signSecret (table column and JSON field); hidden otherwise
A service that caps its pages without saying so, or ignores the paging position, may show only
its first endpoints: the count line says so ("the first 50 endpoints the service lists, not
necessarily all"), and --name or --url narrow the listing.`;

export async function runList(
  client: ListingClient,
  sink: Sink,
  options: ListOptions,
): Promise<WebhookEndpointRecord[]> {
  const filter: ListFilter = { match: options.match };
  if (options.name !== undefined) filter.webhookName = options.name;
  if (options.url !== undefined) filter.webhookUrl = options.url;
  const listed = await listEndpoints(client, filter, Progress.for(sink, options.progress));
  // A name or URL the stack holds secret is not shown as the service has it.
  const records = listed.records.map((record) =>
    hideSecretFields(record, options.secretFields?.fieldsOf(record)),
  );
  const { end } = listed;
  if (options.json) {
    sink.stdout(
      jsonText({
        endpoints: records.map((record) => recordView(record, options.showSecrets, options.secrets ?? [])),
        complete: end.complete,
        ...(end.complete ? {} : { incompleteReason: end.reason }),
      }),
    );
  } else {
    sink.stdout(endpointTable(records, options.showSecrets, options.secrets ?? []));
    const count = `${records.length} endpoint${records.length === 1 ? "" : "s"}${describeFilter(options)}`;
    sink.stderr(
      end.complete
        ? `${count}\n`
        : `the first ${count} the service lists, not necessarily all: ${mayBeIncomplete(end)}; narrow it with --name or --url\n`,
    );
  }
  return records;
}

/** The people's table of endpoints. */
export function endpointTable(
  records: readonly WebhookEndpointRecord[],
  showSecrets: boolean,
  secrets: readonly string[] = [],
): string {
  const headers = [
    "ID",
    "NAME",
    "URL",
    "CREATOR",
    "CREATED",
    "OPERATED",
    ...(showSecrets ? ["SIGN SECRET"] : []),
  ];
  const rows = records.map((r) => [
    String(r.webhookId),
    cell(r.webhookName, MAX_CELL.name, secrets),
    cell(r.webhookUrl, MAX_CELL.url, secrets),
    principal(r.creatorName, r.creatorId),
    isoTime(r.createTime),
    operated(r),
    ...(showSecrets ? [cell(r.signSecret, 200, secrets)] : []),
  ]);
  return table(headers, rows);
}

/** When it was last operated on, and by whom when that is not its creator. */
function operated(record: WebhookEndpointRecord): string {
  const when = isoTime(record.operateTime);
  const sameActor = record.operatorId === record.creatorId && record.operatorName === record.creatorName;
  return sameActor ? when : `${when} by ${principal(record.operatorName, record.operatorId)}`;
}

function describeFilter(options: ListOptions): string {
  const parts: string[] = [];
  if (options.name !== undefined) parts.push(`name ${JSON.stringify(cell(options.name, MAX_CELL.name))}`);
  if (options.url !== undefined) parts.push(`URL ${JSON.stringify(cell(options.url, MAX_CELL.url))}`);
  if (parts.length === 0) return "";
  return ` with ${parts.join(" and ")} (${options.match === "exact" ? "exact match" : "the service's own matching"})`;
}
