import { askedFor, showable } from "../../text";
import type { Command } from "../command";
import { usageError } from "../exit";
import type { ListFilter, WebhookEndpointRecord } from "../../client";
import { listEndpoints, mayBeIncomplete, type ListingClient } from "./listing";
import type { ShownSecrets } from "../../text";
import {
  MAX_CELL,
  Progress,
  cell,
  jsonText,
  principal,
  recordView,
  shownCell,
  table,
  textCell,
  timeCell,
  type HiddenFields,
  type SecretFields,
  type Sink,
} from "../output/output";

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
  /** Kept out of every value shown (the token, the stack's secret values): see src/text/policy.ts. */
  secrets?: ShownSecrets;
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
                      record fields, the exact text with hidden characters as \\u escapes; a field
                      that shows a secret (the access token, a value the stack holds secret) is
                      {"secret": true}; "complete": false (with "incompleteReason") when the
                      service's listing may hold more than it showed
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
  const secrets = options.secrets ?? { inText: [] };
  const listed = await listEndpoints(client, filter, Progress.for(sink, options.progress), secrets.inText);
  // A name or URL the stack holds secret is not shown as the service has it.
  const hiddenOf = (record: WebhookEndpointRecord) => options.secretFields?.fieldsOf(record);
  const { records, end } = listed;
  if (options.json) {
    sink.stdout(
      jsonText({
        endpoints: records.map((record) =>
          recordView(record, options.showSecrets, secrets, hiddenOf(record)),
        ),
        complete: end.complete,
        ...(end.complete ? {} : { incompleteReason: end.reason }),
      }),
    );
  } else {
    sink.stdout(endpointTable(records, options.showSecrets, secrets, hiddenOf));
    const count = `${records.length} endpoint${records.length === 1 ? "" : "s"}${describeFilter(options, secrets)}`;
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
  secrets: ShownSecrets = { inText: [] },
  hiddenOf: (record: WebhookEndpointRecord) => HiddenFields = () => undefined,
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
    textCell(r, "webhookName", MAX_CELL.name, secrets, hiddenOf(r)),
    textCell(r, "webhookUrl", MAX_CELL.url, secrets, hiddenOf(r)),
    principal(r.creatorName, r.creatorId, secrets),
    timeCell(r.createTime, secrets),
    operated(r, secrets),
    ...(showSecrets ? [shownCell(r.signSecret, 200, askedFor(secrets))] : []),
  ]);
  return table(headers, rows);
}

/** When it was last operated on, and by whom when that is not its creator. */
function operated(record: WebhookEndpointRecord, secrets: ShownSecrets): string {
  const when = timeCell(record.operateTime, secrets);
  const sameActor = record.operatorId === record.creatorId && record.operatorName === record.creatorName;
  return sameActor ? when : `${when} by ${principal(record.operatorName, record.operatorId, secrets)}`;
}

function describeFilter(options: ListOptions, secrets: ShownSecrets): string {
  const parts: string[] = [];
  const shown = (text: string, max: number) => JSON.stringify(cell(text, max, secrets.inText));
  if (options.name !== undefined) parts.push(`name ${shown(options.name, MAX_CELL.name)}`);
  if (options.url !== undefined) parts.push(`URL ${shown(options.url, MAX_CELL.url)}`);
  if (parts.length === 0) return "";
  return ` with ${parts.join(" and ")} (${options.match === "exact" ? "exact match" : "the service's own matching"})`;
}

export const listCommand: Command = {
  name: "list",
  summary: "list the endpoints on the service",
  usage: LIST_USAGE,
  options: {
    stack: { type: "string" },
    name: { type: "string" },
    url: { type: "string" },
    match: { type: "string" },
    "show-secrets": { type: "boolean" },
  },
  validate(flags) {
    const match = flags.str("match");
    if (match !== undefined && match !== "exact" && match !== "service")
      throw usageError(`list: --match must be exact or service, got ${JSON.stringify(showable(match, 40))}`);
  },
  async run({ io, flags, connect, connection, secrets }) {
    await runList(await connect(), io.sink, {
      name: flags.str("name"),
      url: flags.str("url"),
      match: (flags.str("match") ?? "exact") as "exact" | "service",
      json: flags.bool("json"),
      showSecrets: flags.bool("show-secrets"),
      progress: flags.bool("progress"),
      secrets: secrets(),
      secretFields: connection().secretFields,
    });
  },
};
