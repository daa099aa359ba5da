import { nameProblems, urlProblems } from "../client/rules";
import type { ListFilter, WebhookEndpointRecord } from "../client/types";
import { usageError } from "./exit";
import { listEndpoints, type ListingClient } from "./listing";
import { MAX_CELL, Progress, cell, isoTime, jsonText, principal, quoted, type Sink } from "./output";

/**
 * `webhooks adopt`: for each selected endpoint, ready-to-paste declarations that take it over
 * instead of creating a new one: the dynamic resource with `adoptWebhookId` (TypeScript), the native
 * resource with the `import` option (Pulumi YAML), and the `pulumi import` command. Every value is
 * written as a JSON string literal (valid in TypeScript and in YAML), so no name or URL a service
 * returns can break out of it.
 */
export const NATIVE_TYPE = "webhooks:index:WebhookEndpoint";
export const FORMATS = ["ts", "yaml", "import", "all"] as const;
export type AdoptFormat = (typeof FORMATS)[number];

export interface AdoptOptions {
  ids: number[];
  name?: string | undefined;
  url?: string | undefined;
  resourceName?: string | undefined;
  format: AdoptFormat;
  json: boolean;
  progress: boolean;
}

export const ADOPT_USAGE = `Usage: webhooks adopt (--id N [--id N ...] | --name N | --url U) [--resource-name R] [--format ts|yaml|import|all] [--json]

Prints declarations that take over existing endpoints instead of creating new ones:
  ts      the dynamic resource: new WebhookEndpoint("<r>", { webhookName, webhookUrl, adoptWebhookId })
  yaml    the native provider (Pulumi YAML): type webhooks:index:WebhookEndpoint with options.import
  import  the command: pulumi import webhooks:index:WebhookEndpoint <r> <id>
  all     (default) all three
  --id N              the endpoint with this webhook_id (repeat for several)
  --name N, --url U   the endpoints with exactly this name and/or URL
  --resource-name R   the Pulumi resource name (default: derived from the endpoint's name;
                      with several endpoints, R-<id>)
  --json              {"declarations": [{webhookId, webhookName, webhookUrl, resourceName,
                      typescript, yaml, importCommand}]}`;

export interface Declaration {
  webhookId: number;
  webhookName: string;
  webhookUrl: string;
  resourceName: string;
  typescript: string;
  yaml: string;
  importCommand: string;
}

export async function runAdopt(client: ListingClient, sink: Sink, options: AdoptOptions): Promise<Declaration[]> {
  const selected = await selectEndpoints(client, sink, options);
  const names = resourceNames(selected, options.resourceName);
  const declarations = selected.map((record, i) => declare(record, names[i]!));
  for (const record of selected) {
    const problems = [...nameProblems(record.webhookName), ...urlProblems(record.webhookUrl)];
    if (problems.length > 0) {
      sink.stderr(
        `warning: endpoint ${record.webhookId} cannot be declared exactly as the service stores it (${cell(problems.join("; "), 400)}): WebhookEndpoint's check refuses it, so it cannot be adopted until its name or URL is changed on the service\n`,
      );
    }
  }
  if (options.json) {
    sink.stdout(jsonText({ declarations }));
    return declarations;
  }
  sink.stdout(render(declarations, selected, options.format));
  return declarations;
}

async function selectEndpoints(client: ListingClient, sink: Sink, options: AdoptOptions): Promise<WebhookEndpointRecord[]> {
  const progress = Progress.for(sink, options.progress);
  if (options.ids.length > 0) {
    // There is no read-by-id: the whole listing is searched.
    const all = await listEndpoints(client, {}, progress);
    const byId = new Map(all.map((record) => [record.webhookId, record]));
    const missing = options.ids.filter((id) => !byId.has(id));
    if (missing.length > 0) throw usageError(`no endpoint with webhook_id ${missing.join(", ")} exists on the service (\`webhooks list\` shows them)`);
    return [...new Set(options.ids)].sort((a, b) => a - b).map((id) => byId.get(id)!);
  }
  const filter: ListFilter = { match: "exact" };
  if (options.name !== undefined) filter.webhookName = options.name;
  if (options.url !== undefined) filter.webhookUrl = options.url;
  const found = await listEndpoints(client, filter, progress);
  if (found.length === 0) {
    throw usageError(
      `no endpoint has exactly ${[options.name === undefined ? "" : `the name ${quoted(cell(options.name, MAX_CELL.name))}`, options.url === undefined ? "" : `the URL ${quoted(cell(options.url, MAX_CELL.url))}`].filter(Boolean).join(" and ")} (search with \`webhooks list --match service\`)`,
    );
  }
  if (found.length > 1) {
    sink.stderr(`note: ${found.length} endpoints match; each gets its own declaration: keep only the one this stack should own\n`);
  }
  return found;
}

/** A Pulumi resource name derived from an endpoint's name: letters, digits, `-`, `_` and `.`. */
export function resourceNameFor(webhookName: string, webhookId: number): string {
  const base = webhookName
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9_.-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 64)
    .replace(/[-.]+$/, "");
  return base === "" ? `webhook-${webhookId}` : base;
}

/** One resource name per record: the given one (R-<id> for several), else derived and made unique. */
export function resourceNames(records: readonly WebhookEndpointRecord[], given: string | undefined): string[] {
  if (given !== undefined) return records.length === 1 ? [given] : records.map((r) => `${given}-${r.webhookId}`);
  const derived = records.map((r) => resourceNameFor(r.webhookName, r.webhookId));
  const counts = new Map<string, number>();
  for (const name of derived) counts.set(name, (counts.get(name) ?? 0) + 1);
  return derived.map((name, i) => ((counts.get(name) ?? 0) > 1 ? `${name}-${records[i]!.webhookId}` : name));
}

/** A TypeScript identifier for a resource name: camelCase, ending in `Webhook` (never a keyword). */
export function identifierFor(resourceName: string): string {
  const words = resourceName.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const camel = words.map((w, i) => (i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1))).join("");
  const ident = `${camel}Webhook`;
  return /^[A-Za-z_$]/.test(ident) ? ident.charAt(0).toLowerCase() + ident.slice(1) : `webhook${ident.charAt(0).toUpperCase()}${ident.slice(1)}`;
}

function declare(record: WebhookEndpointRecord, resourceName: string): Declaration {
  const typescript = [
    `// endpoint ${record.webhookId}, created ${isoTime(record.createTime)} by ${commentText(principal(record.creatorName, record.creatorId))}`,
    `const ${identifierFor(resourceName)} = new WebhookEndpoint(${quoted(resourceName)}, {`,
    `  webhookName: ${quoted(record.webhookName)},`,
    `  webhookUrl: ${quoted(record.webhookUrl)},`,
    `  adoptWebhookId: ${record.webhookId},`,
    `});`,
  ].join("\n");
  const yaml = [
    `  ${quoted(resourceName)}: # endpoint ${record.webhookId}`,
    `    type: ${NATIVE_TYPE}`,
    `    properties:`,
    `      webhookName: ${quoted(record.webhookName)}`,
    `      webhookUrl: ${quoted(record.webhookUrl)}`,
    `    options:`,
    `      import: ${quoted(String(record.webhookId))}`,
  ].join("\n");
  const importCommand = `pulumi import ${NATIVE_TYPE} ${shellQuote(resourceName)} ${record.webhookId}`;
  return { webhookId: record.webhookId, webhookName: record.webhookName, webhookUrl: record.webhookUrl, resourceName, typescript, yaml, importCommand };
}

function render(declarations: readonly Declaration[], records: readonly WebhookEndpointRecord[], format: AdoptFormat): string {
  const blocks: string[] = [];
  const all = format === "all";
  if (format === "ts" || all) {
    blocks.push(
      [
        ...(all ? ["// TypeScript: the dynamic resource takes the endpoint over on the next `pulumi up` (no create call)."] : []),
        `import { WebhookEndpoint } from "pulumi-webhook-endpoints";`,
        "",
        declarations.map((d) => d.typescript).join("\n\n"),
      ].join("\n"),
    );
  }
  if (format === "yaml" || all) {
    blocks.push(
      [
        ...(all ? ["# Pulumi YAML: the native provider imports the endpoint on the next `pulumi up`; the import option may stay."] : []),
        "resources:",
        declarations.map((d) => d.yaml).join("\n"),
      ].join("\n"),
    );
  }
  if (format === "import" || all) {
    blocks.push(
      [
        ...(all ? ["# Or import it into a stack of the native provider (prints the code to add to the program):"] : []),
        ...declarations.map((d, i) => `${d.importCommand}${all ? `  # ${commentText(cell(records[i]!.webhookName, MAX_CELL.name))}` : ""}`),
      ].join("\n"),
    );
  }
  return `${blocks.join("\n\n")}\n`;
}

/** Text inside a `//` or `#` comment: no character any reader takes for a line break. */
function commentText(text: string): string {
  return text.replace(/[\r\n\u0085\u2028\u2029]/g, " ");
}

export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_.:/@%+=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
