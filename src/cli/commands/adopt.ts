import type { Command } from "../command";
import { nameProblems, urlProblems, type ListFilter, type WebhookEndpointRecord } from "../../client";
import { TYPE_TOKENS } from "../../core/resource";
import {
  SECRET_MARKER,
  pasteRefusal,
  shellQuote,
  showable,
  showsSecret,
  shownValue,
  type ShownSecrets,
} from "../../text";
import { CliError, EXIT, usageError } from "../exit";
import { listEndpoints, type ListingClient } from "./listing";
import {
  HIDDEN,
  HIDDEN_CHAR,
  MAX_CELL,
  Progress,
  cell,
  codeEscape,
  holdsSecretShown,
  jsonText,
  principal,
  quoted,
  timeCell,
  type SecretFields,
  type Shown,
  type Sink,
} from "../output/output";

/**
 * `webhooks adopt`: for each selected endpoint, ready-to-paste declarations that take it over
 * instead of creating a new one: the dynamic resource with `adoptWebhookId` (TypeScript), the native
 * resource with the `import` option (Pulumi YAML), and the `pulumi import` command.
 *
 * Each format has its own writer, proven by its consumer (test/cli/adopt-consumers.test.ts and
 * test/e2e/adopt-yaml.test.ts): a TypeScript string literal the compiler reads back exactly; a YAML
 * double-quoted scalar with every `$` doubled, because Pulumi YAML interpolates `${...}` in every
 * string and reads `$$` as `$`; a POSIX shell word. Characters a person cannot see are written as
 * escapes. What a format cannot carry exactly is refused for that format, with a warning saying
 * why (docs/adopt-output.md): an endpoint whose name or URL holds the access token is not declared
 * at all (no declaration of it could avoid printing the token), and a lone UTF-16 surrogate cannot
 * reach Pulumi's engine, whose messages are UTF-8.
 */
export const NATIVE_TYPE = TYPE_TOKENS.native;
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
  /**
   * Never printed (`inText`: first the access token, then the stack's secret values): an endpoint
   * whose name or URL shows one is not declared (src/text/policy.ts).
   */
  secrets?: ShownSecrets | undefined;
  /** Fields a stack's state holds secret, per endpoint: such an endpoint is not declared. */
  secretFields?: SecretFields | undefined;
}

export const ADOPT_USAGE = `Usage: webhooks adopt (--id N [--id N ...] | --name N | --url U) [--resource-name R] [--format ts|yaml|import|all] [--json]

Prints declarations that take over existing endpoints instead of creating new ones:
  ts      the dynamic resource: new WebhookEndpoint("<r>", { webhookName, webhookUrl, adoptWebhookId })
  yaml    the native provider (Pulumi YAML): type webhooks:index:WebhookEndpoint with options.import
          (every $ written as $$: Pulumi YAML reads \${...} in any string as a reference)
  import  the command: pulumi import webhooks:index:WebhookEndpoint <r> <id>
  all     (default) all three
  --id N              the endpoint with this webhook_id (repeat for several)
  --name N, --url U   the endpoints with exactly this name and/or URL
  --resource-name R   the Pulumi resource name (letters, digits, '-', '_', '.', not starting with
                      '-'; default: derived from the endpoint's name; with several endpoints, R-<id>)
  --json              {"declarations": [{webhookId, webhookName, webhookUrl, resourceName,
                      typescript, yaml, importCommand, refused}]}: a format refused is null,
                      and refused.<format> says why
An endpoint whose name or URL holds the access token is never declared, and one holding a character
a format cannot carry exactly (a lone UTF-16 surrogate) gets no declaration in that format: a
warning on stderr names it and says why. Exit code 5 when no declaration could be printed.`;

/** The three declarations, by their names in --json. */
export const DECLARATION_KINDS = ["typescript", "yaml", "importCommand"] as const;
export type DeclarationKind = (typeof DECLARATION_KINDS)[number];

export interface Declaration {
  webhookId: number;
  /** As the service stores it; the secret marker when it shows a secret or the stack holds it secret. */
  webhookName: Shown<string>;
  /** As the service stores it; the secret marker when it shows a secret or the stack holds it secret. */
  webhookUrl: Shown<string>;
  resourceName: string;
  /** Null when refused (see `refused.typescript`). */
  typescript: string | null;
  /** Null when refused (see `refused.yaml`). */
  yaml: string | null;
  /** Null when refused (see `refused.importCommand`). */
  importCommand: string | null;
  /** Why a declaration is null, for each one that is. */
  refused: Partial<Record<DeclarationKind, string>>;
}

/** Which declarations a format prints. */
function kindsOf(format: AdoptFormat, json: boolean): DeclarationKind[] {
  if (json || format === "all") return [...DECLARATION_KINDS];
  return [format === "ts" ? "typescript" : format === "yaml" ? "yaml" : "importCommand"];
}

const KIND_LABEL: Record<DeclarationKind, string> = {
  typescript: "TypeScript",
  yaml: "Pulumi YAML",
  importCommand: "pulumi import",
};

export async function runAdopt(
  client: ListingClient,
  sink: Sink,
  options: AdoptOptions,
): Promise<Declaration[]> {
  const policy = options.secrets ?? { inText: [] };
  const secrets = policy.inText;
  if (options.resourceName !== undefined) {
    const problem = resourceNameProblem(options.resourceName, secrets);
    if (problem !== undefined) throw usageError(`adopt: --resource-name ${problem}`);
  }
  const selected = await selectEndpoints(client, sink, options);
  // A name the stack holds secret, or that shows a secret, is never shown, and no resource name is
  // derived from it.
  const fieldsOf = (record: WebhookEndpointRecord) => options.secretFields?.fieldsOf(record);
  const names = resourceNames(
    selected.map((record) =>
      fieldsOf(record)?.has("webhookName") === true || showsSecret(record.webhookName, policy)
        ? { ...record, webhookName: "" }
        : record,
    ),
    options.resourceName,
    secrets,
  );
  const identifiers = identifiersFor(names);
  const declarations = selected.map((record, i) =>
    declare(record, names[i]!, identifiers[i]!, policy, fieldsOf(record)),
  );
  const kinds = kindsOf(options.format, options.json);
  for (const [i, record] of selected.entries()) {
    const declaration = declarations[i]!;
    const refusals = new Map<string, DeclarationKind[]>();
    for (const kind of kinds) {
      const why = declaration.refused[kind];
      if (why !== undefined) refusals.set(why, [...(refusals.get(why) ?? []), kind]);
    }
    for (const [why, refused] of refusals) {
      sink.stderr(
        `warning: endpoint ${record.webhookId} gets no ${refused.map((kind) => KIND_LABEL[kind]).join(", ")} declaration: ${why}\n`,
      );
    }
    if (kinds.every((kind) => declaration[kind] === null)) continue;
    // Past the refusals: neither the name nor the URL shows a secret, or is held secret.
    const problems = [...nameProblems(record.webhookName), ...urlProblems(record.webhookUrl)];
    if (problems.length > 0) {
      sink.stderr(
        `warning: endpoint ${record.webhookId} cannot be declared exactly as the service stores it (${cell(problems.join("; "), 400, secrets)}): WebhookEndpoint's check refuses it, so it cannot be adopted until its name or URL is changed on the service\n`,
      );
    }
  }
  const printed = declarations.some((declaration) => kinds.some((kind) => declaration[kind] !== null));
  if (options.json) sink.stdout(jsonText({ declarations }));
  else if (printed) sink.stdout(render(declarations, options.format));
  if (!printed) {
    throw new CliError(
      EXIT.refused,
      `no declaration printed: ${selected.length === 1 ? "the endpoint cannot" : `none of the ${selected.length} endpoints can`} be declared (the warnings above say why)`,
    );
  }
  return declarations;
}

async function selectEndpoints(
  client: ListingClient,
  sink: Sink,
  options: AdoptOptions,
): Promise<WebhookEndpointRecord[]> {
  const progress = Progress.for(sink, options.progress);
  if (options.ids.length > 0) {
    // There is no read-by-id: the whole listing is searched.
    const all = await listEndpoints(client, {}, progress, options.secrets?.inText);
    const byId = new Map(all.map((record) => [record.webhookId, record]));
    const missing = options.ids.filter((id) => !byId.has(id));
    if (missing.length > 0)
      throw usageError(
        `no endpoint with webhook_id ${missing.join(", ")} exists on the service (\`webhooks list\` shows them)`,
      );
    return [...new Set(options.ids)].sort((a, b) => a - b).map((id) => byId.get(id)!);
  }
  const filter: ListFilter = { match: "exact" };
  if (options.name !== undefined) filter.webhookName = options.name;
  if (options.url !== undefined) filter.webhookUrl = options.url;
  const found = await listEndpoints(client, filter, progress, options.secrets?.inText);
  if (found.length === 0) {
    throw usageError(
      `no endpoint has exactly ${[options.name === undefined ? "" : `the name ${quoted(cell(options.name, MAX_CELL.name, options.secrets?.inText))}`, options.url === undefined ? "" : `the URL ${quoted(cell(options.url, MAX_CELL.url, options.secrets?.inText))}`].filter(Boolean).join(" and ")} (search with \`webhooks list --match service\`)`,
    );
  }
  if (found.length > 1) {
    sink.stderr(
      `note: ${found.length} endpoints match; each gets its own declaration: keep only the one this stack should own\n`,
    );
  }
  return found;
}

/** A Pulumi resource name derived from an endpoint's name: letters, digits, `-`, `_` and `.`. */
export function resourceNameFor(
  webhookName: string,
  webhookId: number,
  secrets: readonly string[] = [],
): string {
  const fallback = `webhook-${webhookId}`;
  if (holdsSecretShown(webhookName, secrets)) return fallback;
  const base = webhookName
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9_.-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 64)
    .replace(/[-.]+$/, "");
  // The token may also appear only once derived (a token "a-b" from a name "a b").
  return base === "" || holdsSecretShown(base, secrets) ? fallback : base;
}

/**
 * Why a resource name given with --resource-name cannot be used, or undefined. The characters are
 * those every format writes as they are (a bare shell word, a plain YAML key, a TypeScript string)
 * and `pulumi import` does not take for a flag (no leading `-`).
 */
export function resourceNameProblem(name: string, secrets: readonly string[] = []): string | undefined {
  if (!/^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,99}$/.test(name)) {
    return "may hold letters, digits, '-', '_' and '.' (at most 100, not starting with '-')";
  }
  if (holdsSecretShown(name, secrets)) return "holds the access token: choose another name";
  return undefined;
}

/** One resource name per record: the given one (R-<id> for several), else derived and made unique. */
export function resourceNames(
  records: readonly WebhookEndpointRecord[],
  given: string | undefined,
  secrets: readonly string[] = [],
): string[] {
  if (given !== undefined)
    return records.length === 1 ? [given] : records.map((r) => `${given}-${r.webhookId}`);
  const derived = records.map((r) => resourceNameFor(r.webhookName, r.webhookId, secrets));
  const counts = new Map<string, number>();
  for (const name of derived) counts.set(name, (counts.get(name) ?? 0) + 1);
  const suffixed = derived.map((name, i) =>
    (counts.get(name) ?? 0) > 1 ? `${name}-${records[i]!.webhookId}` : name,
  );
  // A suffixed name may be another endpoint's own (`a` twice with ids 3 and 4, and `a-3`): the first
  // keeps it, a later one gets a number no other name has. One program may declare each only once.
  const all = new Set(suffixed);
  const taken = new Set<string>();
  return suffixed.map((name) => {
    let candidate = name;
    for (let n = 2; taken.has(candidate) || (candidate !== name && all.has(candidate)); n++)
      candidate = `${name}-${n}`;
    taken.add(candidate);
    return candidate;
  });
}

/** A TypeScript identifier for a resource name: camelCase, ending in `Webhook` (never a keyword). */
export function identifierFor(resourceName: string): string {
  const words = resourceName.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const camel = words
    .map((w, i) =>
      i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1),
    )
    .join("");
  const ident = `${camel}Webhook`;
  return /^[A-Za-z_$]/.test(ident)
    ? ident.charAt(0).toLowerCase() + ident.slice(1)
    : `webhook${ident.charAt(0).toUpperCase()}${ident.slice(1)}`;
}

/**
 * One distinct identifier per resource name, for one program: distinct names may give the same
 * identifier (`a-b`, `a_b` and `A.b` all give `aBWebhook`), and a program that declares one twice
 * does not compile. The second and later get a number after `Webhook`, which {@link identifierFor}
 * never ends with, so no suffixed one equals another's.
 */
export function identifiersFor(resourceNames: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return resourceNames.map((name) => {
    const identifier = identifierFor(name);
    const count = (seen.get(identifier) ?? 0) + 1;
    seen.set(identifier, count);
    return count === 1 ? identifier : `${identifier}${count}`;
  });
}

/** Whether a text holds a UTF-16 surrogate that is not half of a pair. */
function hasLoneSurrogate(text: string): boolean {
  return /\p{Cs}/u.test(text);
}

/** Why each declaration of the record cannot be written exactly; empty when all can. */
function refusals(
  record: WebhookEndpointRecord,
  secrets: ShownSecrets,
  secretFields?: ReadonlySet<string>,
): Declaration["refused"] {
  const holding = (test: (text: string) => boolean) =>
    [test(record.webhookName) ? "name" : "", test(record.webhookUrl) ? "URL" : ""]
      .filter(Boolean)
      .join(" and ");
  const marked = [
    secretFields?.has("webhookName") ? "name" : "",
    secretFields?.has("webhookUrl") ? "URL" : "",
  ]
    .filter(Boolean)
    .join(" and ");
  if (marked !== "") {
    const why = `its ${marked} ${marked.includes(" and ") ? "are" : "is"} a secret in this stack's state: a declaration would print ${marked.includes(" and ") ? "them" : "it"} in plain text; declare it from the stack's own secret values instead`;
    return { typescript: why, yaml: why, importCommand: why };
  }
  // The first secret is the token this command connects with; the others are values the stack holds secret.
  const fields = [
    { label: "name", text: record.webhookName },
    { label: "URL", text: record.webhookUrl },
  ];
  const why =
    pasteRefusal(
      fields,
      { inText: secrets.inText.slice(0, 1) },
      "the access token this command connects with",
    ) ??
    pasteRefusal(
      fields,
      { inText: secrets.inText.slice(1), whole: secrets.whole },
      "a value this stack holds secret",
    );
  if (why !== undefined) return { typescript: why, yaml: why, importCommand: why };
  const surrogate = holding(hasLoneSurrogate);
  if (surrogate !== "") {
    const what = `its ${surrogate} ${surrogate.includes(" and ") ? "hold" : "holds"} a lone UTF-16 surrogate`;
    const engine =
      "Pulumi's engine cannot carry it (its messages are UTF-8, where it becomes U+FFFD), so the declared value would never equal the service's; have the endpoint renamed on the service";
    return {
      typescript: `${what}: TypeScript can write it as an escape, but ${engine}`,
      yaml: `${what}: YAML cannot write it (yaml.v3 refuses \\uD800-\\uDFFF escapes), and ${engine}`,
      importCommand: `${what}: ${engine}`,
    };
  }
  return {};
}

function declare(
  record: WebhookEndpointRecord,
  resourceName: string,
  identifier: string,
  secrets: ShownSecrets,
  secretFields?: ReadonlySet<string>,
): Declaration {
  const refused = refusals(record, secrets, secretFields);
  const typescript = [
    `// endpoint ${record.webhookId}, created ${timeCell(record.createTime, secrets)} by ${commentText(principal(record.creatorName, record.creatorId, secrets))}`,
    `const ${identifier} = new WebhookEndpoint(${tsString(resourceName)}, {`,
    `  webhookName: ${tsString(record.webhookName)},`,
    `  webhookUrl: ${tsString(record.webhookUrl)},`,
    `  adoptWebhookId: ${record.webhookId},`,
    `});`,
  ].join("\n");
  const yaml = () =>
    [
      `  ${yamlString(resourceName, "key")}: # endpoint ${record.webhookId}`,
      `    type: ${NATIVE_TYPE}`,
      `    properties:`,
      `      webhookName: ${yamlString(record.webhookName, "value")}`,
      `      webhookUrl: ${yamlString(record.webhookUrl, "value")}`,
      `    options:`,
      `      import: ${yamlString(String(record.webhookId), "value")}`,
    ].join("\n");
  return {
    webhookId: record.webhookId,
    webhookName: secretFields?.has("webhookName") ? SECRET_MARKER : shownValue(record.webhookName, secrets),
    webhookUrl: secretFields?.has("webhookUrl") ? SECRET_MARKER : shownValue(record.webhookUrl, secrets),
    resourceName,
    typescript: refused.typescript === undefined ? typescript : null,
    yaml: refused.yaml === undefined ? yaml() : null,
    importCommand:
      refused.importCommand === undefined
        ? `pulumi import ${NATIVE_TYPE} ${shellQuote(resourceName)} ${record.webhookId}`
        : null,
    refused,
  };
}

function render(declarations: readonly Declaration[], format: AdoptFormat): string {
  const blocks: string[] = [];
  const all = format === "all";
  const none = (kind: DeclarationKind) =>
    `${kind === "typescript" ? "//" : "#"} (none: every endpoint was refused, see the warnings)`;
  const typescript = declarations.flatMap((d) => (d.typescript === null ? [] : [d.typescript]));
  if (format === "ts" || all) {
    blocks.push(
      [
        ...(all
          ? [
              "// TypeScript: the dynamic resource takes the endpoint over on the next `pulumi up` (no create call).",
            ]
          : []),
        `import { WebhookEndpoint } from "pulumi-webhook-endpoints";`,
        "",
        typescript.length > 0 ? typescript.join("\n\n") : none("typescript"),
      ].join("\n"),
    );
  }
  const yaml = declarations.flatMap((d) => (d.yaml === null ? [] : [d.yaml]));
  if (format === "yaml" || all) {
    blocks.push(
      [
        ...(all
          ? [
              "# Pulumi YAML: the native provider imports the endpoint on the next `pulumi up`; the import option may stay.",
            ]
          : []),
        ...(yaml.length > 0 ? ["resources:", yaml.join("\n")] : [none("yaml")]),
      ].join("\n"),
    );
  }
  if (format === "import" || all) {
    // The commands alone, no service text after them: a trailing `# <name>` is not a comment in an
    // interactive zsh (whose default has no interactive comments), so `$(...)` in a name would run.
    const commands = declarations.flatMap((d) => (d.importCommand === null ? [] : [d.importCommand]));
    blocks.push(
      [
        ...(all
          ? ["# Or import it into a stack of the native provider (prints the code to add to the program):"]
          : []),
        ...(commands.length > 0 ? commands : [none("importCommand")]),
      ].join("\n"),
    );
  }
  return `${blocks.join("\n\n")}\n`;
}

/** Text inside a `//` or `#` comment: no character any reader takes for a line break. */
function commentText(text: string): string {
  return text.replace(/[\r\n\u0085\u2028\u2029]/g, " ");
}

/**
 * A TypeScript (JavaScript) string literal that the compiler reads back as exactly `text`: JSON's
 * escaping (a lone surrogate becomes `\udXXX`), and every hidden character as an escape, so that
 * what a person reads in the code is what it holds.
 */
export function tsString(text: string): string {
  return JSON.stringify(text).replace(HIDDEN, codeEscape);
}

/**
 * A YAML double-quoted scalar that gopkg.in/yaml.v3 (Pulumi YAML's parser) reads back as exactly
 * `text`, and, for a `value`, that Pulumi YAML's interpolation then leaves as it is: every `$` is
 * doubled (pulumi-yaml's parseInterpolate reads `$$` as `$` and `${` as the start of a reference,
 * in any string). Printable ASCII is written as it is (after `\"` and `\\`); control characters,
 * the characters yaml.v3 refuses raw (U+FFFE, U+FFFF, U+FEFF) or folds as line breaks (U+0085,
 * U+2028, U+2029), and every hidden character are written as `\uXXXX` or `\UXXXXXXXX` escapes,
 * which yaml.v3 reads for every code point but the surrogates. A key is not interpolated: its `$`
 * stay single. Throws on a lone surrogate, which no YAML can hold (refused before this is called).
 */
export function yamlString(text: string, kind: "key" | "value"): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) throw new Error("a lone surrogate cannot be written in YAML");
    if (char === '"' || char === "\\") out += `\\${char}`;
    else if (char === "$" && kind === "value") out += "$$";
    else if (code >= 0x20 && code <= 0x7e) out += char;
    else if (code < 0xa0 || HIDDEN_CHAR.test(char))
      out +=
        code > 0xffff
          ? `\\U${code.toString(16).padStart(8, "0")}`
          : `\\u${code.toString(16).padStart(4, "0")}`;
    else out += char;
  }
  return `${out}"`;
}

export const adoptCommand: Command = {
  name: "adopt",
  summary: "print declarations that take existing endpoints over (TypeScript, Pulumi YAML, pulumi import)",
  usage: ADOPT_USAGE,
  options: {
    stack: { type: "string" },
    id: { type: "string", multiple: true },
    name: { type: "string" },
    url: { type: "string" },
    "resource-name": { type: "string" },
    format: { type: "string" },
  },
  validate(flags) {
    const ids = flags.list("id");
    for (const id of ids)
      if (!/^\d+$/.test(id) || !Number.isSafeInteger(Number(id)) || Number(id) <= 0)
        throw usageError(
          `adopt: --id must be a webhook_id (a positive whole number), got ${JSON.stringify(showable(id, 40))}`,
        );
    const byName = flags.str("name") !== undefined || flags.str("url") !== undefined;
    if (ids.length > 0 === byName)
      throw usageError("adopt: select the endpoints with --id N (one or more), or with --name and/or --url");
    const format = flags.str("format");
    if (format !== undefined && !(FORMATS as readonly string[]).includes(format))
      throw usageError(`adopt: --format must be one of ${FORMATS.join(", ")}`);
    const resourceName = flags.str("resource-name");
    const problem = resourceName === undefined ? undefined : resourceNameProblem(resourceName);
    if (problem !== undefined) throw usageError(`adopt: --resource-name ${problem}`);
  },
  async run({ io, flags, connect, connection, secrets }) {
    await runAdopt(await connect(), io.sink, {
      ids: flags.list("id").map(Number),
      name: flags.str("name"),
      url: flags.str("url"),
      resourceName: flags.str("resource-name"),
      format: (flags.str("format") ?? "all") as AdoptFormat,
      json: flags.bool("json"),
      progress: flags.bool("progress"),
      secrets: secrets(),
      secretFields: connection().secretFields,
    });
  },
};
