import { SECRET_CELL, redactShown, shellQuote, showsSecret, shownValue, type ShownSecrets } from "../../text";
import { resourceNameProblem } from "./adopt";
import { MAX_CELL, jsonText, shownCell, table, timeCell, type Sink } from "../output/output";

/** What `recover` found and did; `--json` prints it as it is. */
export interface RecoverReport {
  stack: string;
  project: string;
  /** Pending creates of WebhookEndpoint resources found in the state. */
  pendingCreates: number;
  /**
   * `creators`: the stack's principal(s) as its state records them, on every service looked at; empty when
   * it shows none.
   */
  window: { since: string; source: string; skewMs: number; creators?: number[] } | null;
  /**
   * Each service the pending creates were sent to, with the stack's principal there (the creators of
   * the endpoints the stack created on it; empty: none recorded, so nothing is recorded unasked). A
   * base URL the state holds secret is not shown.
   */
  services: { service: string; creators: number[]; pendingCreates: number }[];
  lock: {
    holder: string;
    startedAt: string;
    verdict: "stale" | "live" | "unknown";
    why: string;
    released: boolean;
  } | null;
  /** Provider hosts the killed run left running in the project directory. */
  providers: { pid: number; engine: string; kind: "dynamic" | "native"; stopped: boolean }[];
  recorded: (Entry & { webhookId: number; createTime: number; how: string })[];
  cleared: (Entry & { reason: string })[];
  /**
   * `elsewhere`: the create was sent to another service than the one this command connects to (an
   * explicit provider's, a connection input's); `baseUrl` is that service, null when the state holds it secret.
   */
  ambiguous: (Entry & {
    reason: string;
    candidates: { webhookId: number; createTime: number; creatorId: number }[];
    elsewhere?: { baseUrl: string | null };
  })[];
  /** Other pending operations (updates, deletes, reads) `pulumi stack import` drops, as the next update would. */
  droppedOperations: number;
  /** A broken checkpoint metadata file removed (or, in a dry run, that would be) so that the stack loads. */
  repaired: { file: string; why: string } | null;
  dryRun: boolean;
  /** Whether the state (or the lock) was changed. */
  changed: boolean;
}

interface Entry {
  urn: string;
  resourceName: string;
  /** Undefined when the state holds it secret (a pending create always has both): shown as `[secret]`. */
  webhookName?: string | undefined;
  webhookUrl?: string | undefined;
}

/**
 * `secrets`: what nothing printed may show (the token, the stack's secret values), through the text
 * policy (src/text/policy.ts): a value from the outside world that shows one is `[secret]` in the
 * report and the secret marker in `--json`; one inside a reason (which quotes service and state
 * text) is `[REDACTED]`.
 */
export function printReport(
  sink: Sink,
  report: RecoverReport,
  json: boolean,
  policy: ShownSecrets = { inText: [] },
): void {
  if (json) {
    sink.stdout(jsonText(reportView(report, policy)));
    return;
  }
  const lines = [
    ...headerLines(report, policy),
    ...recordedLines(report, policy),
    ...clearedLines(report, policy),
    ...ambiguousLines(report, policy),
    ...closingLines(report),
  ];
  sink.stdout(`${lines.join("\n")}\n`);
}

/** A creator id as a cell: `[secret]` when it shows a secret. */
const idCell = (value: number, policy: ShownSecrets) =>
  showsSecret(value, policy) ? SECRET_CELL : String(value);

/**
 * The stack, then what was found before looking: a repaired checkpoint, the lock, left-over hosts, the
 * window, each service.
 */
function headerLines(report: RecoverReport, policy: ShownSecrets): string[] {
  const lines = [
    `Stack ${report.stack} (project ${report.project}): ${report.pendingCreates} pending create(s) of webhook endpoints.`,
  ];
  if (report.repaired)
    lines.push(
      `Repaired: ${report.repaired.why}: ${report.dryRun ? "would remove" : "removed"} ${report.repaired.file}.`,
    );
  if (report.lock) {
    const l = report.lock;
    lines.push(
      `Lock: taken by ${l.holder} at ${l.startedAt}; ${l.why}${l.released ? ": released (pulumi cancel)" : report.dryRun ? ": would be released" : ""}.`,
    );
  }
  for (const p of report.providers) {
    lines.push(
      `Provider host left running by the killed run: pid ${p.pid} (${p.kind}; its engine ${p.engine} is gone)${p.stopped ? ": stopped, then waited for creates in flight to land" : report.dryRun ? ": would be stopped" : ": could not be stopped"}.`,
    );
  }
  if (report.window) {
    const w = report.window;
    lines.push(
      `Window: endpoints created since ${w.since} (${w.source}), less ${Math.round(w.skewMs / 1000)} s for clock skew, by the stack's principal on their service, held by no resource of the stack.`,
    );
  }
  for (const s of report.services) {
    lines.push(
      `Service ${shownCell(s.service, MAX_CELL.url, policy)}: ${s.pendingCreates} pending create(s); ${s.creators.length > 0 ? `the stack's principal there is creator ${s.creators.map((c) => idCell(c, policy)).join(" or ")} (endpoints it created)` : "the state records no endpoint the stack created there, so its principal is unknown: any match needs a person's --pick"}.`,
    );
  }
  return lines;
}

/** A name or URL as a cell: `[secret]` when the state holds it secret. */
const nameCell = (value: string | undefined, max: number, policy: ShownSecrets) =>
  value === undefined ? SECRET_CELL : shownCell(value, max, policy);

function recordedLines(report: RecoverReport, policy: ShownSecrets): string[] {
  if (report.recorded.length === 0) return [];
  return [
    "",
    `Recorded in state${report.dryRun ? " (dry run: would be)" : ""}: the endpoint each create made.`,
    table(
      ["RESOURCE", "ID", "NAME", "URL", "CREATED"],
      report.recorded.map((r) => [
        shownCell(r.resourceName, MAX_CELL.name, policy),
        String(r.webhookId),
        nameCell(r.webhookName, MAX_CELL.name, policy),
        nameCell(r.webhookUrl, MAX_CELL.url, policy),
        timeCell(r.createTime, policy),
      ]),
    ).trimEnd(),
  ];
}

function clearedLines(report: RecoverReport, policy: ShownSecrets): string[] {
  if (report.cleared.length === 0) return [];
  return [
    "",
    `Cleared${report.dryRun ? " (dry run: would be)" : ""}: the next \`pulumi up\` creates these.`,
    table(
      ["RESOURCE", "NAME", "WHY"],
      report.cleared.map((c) => [
        shownCell(c.resourceName, MAX_CELL.name, policy),
        nameCell(c.webhookName, MAX_CELL.name, policy),
        redactShown(c.reason, policy.inText),
      ]),
    ).trimEnd(),
  ];
}

/** Each create a person must decide, with its candidates and the commands that decide it. */
function ambiguousLines(report: RecoverReport, policy: ShownSecrets): string[] {
  if (report.ambiguous.length === 0) return [];
  const lines = ["", "Not guessed (nothing was changed): a person must choose."];
  for (const a of report.ambiguous) {
    lines.push(
      `  ${shownCell(a.resourceName, MAX_CELL.name, policy)} (${nameCell(a.webhookName, MAX_CELL.name, policy)}, ${nameCell(a.webhookUrl, MAX_CELL.url, policy)}): ${redactShown(a.reason, policy.inText)}`,
    );
    for (const c of a.candidates) {
      lines.push(
        `    endpoint ${c.webhookId}, created ${timeCell(c.createTime, policy)} by creator ${idCell(c.creatorId, policy)}:`,
        `      webhooks recover --pick ${shellQuote(`${a.resourceName}=${c.webhookId}`)}`,
        adoptAdvice(a, c.webhookId, policy),
      );
    }
  }
  return lines;
}

/** How to declare a candidate instead, on the service its create was sent to. */
function adoptAdvice(a: RecoverReport["ambiguous"][number], webhookId: number, policy: ShownSecrets): string {
  // Only a resource name adopt accepts is suggested (a stack's resource may be named anything).
  const resourceName =
    resourceNameProblem(a.resourceName, policy.inText) === undefined
      ? ` --resource-name ${shellQuote(a.resourceName)}`
      : "";
  if (a.elsewhere === undefined)
    return `      or declare it: webhooks adopt --id ${webhookId}${resourceName}`;
  // The id is the service's: adopt run as the project configures it would look it up on another service.
  if (a.elsewhere.baseUrl !== null)
    return `      or declare it (with WEBHOOKS_ACCESS_TOKEN set to the token of the provider that sent it): webhooks adopt --id ${webhookId} --base-url ${shellQuote(a.elsewhere.baseUrl)}${resourceName}`;
  return `      or declare it with webhooks adopt --id ${webhookId}${resourceName}, WEBHOOKS_BASE_URL and WEBHOOKS_ACCESS_TOKEN set to the base URL (held secret, not shown) and token of the provider that sent it`;
}

/** Operations dropped, then what to do next. */
function closingLines(report: RecoverReport): string[] {
  const lines: string[] = [];
  if (report.droppedOperations > 0)
    lines.push(
      "",
      `${report.droppedOperations} other pending operation(s) ${report.dryRun ? "would be " : ""}dropped, as the next update would drop them.`,
    );
  if (report.pendingCreates === 0 && !report.lock && !report.repaired)
    lines.push("Nothing to recover: no pending creates of webhook endpoints and no lock.");
  else if (report.changed)
    lines.push(
      "",
      "Done. Run `pulumi up`: it creates what was cleared and changes nothing that was recorded.",
    );
  else if (report.dryRun && report.ambiguous.length === 0)
    lines.push("", "Dry run: nothing was changed. Run again with --yes to apply.");
  return lines;
}

/**
 * The report as `--json` prints it: each value from the outside world (a resource's name and URN,
 * an endpoint's name, URL, creator and times, a service, a principal) through the text policy, a
 * secret one as the marker; a reason, which quotes such values, with each secret in it redacted.
 */
function reportView(report: RecoverReport, policy: ShownSecrets): unknown {
  const shown = <T extends string | number>(value: T) => shownValue(value, policy);
  const reason = (text: string) => redactShown(text, policy.inText);
  const entry = (e: Entry) => ({
    urn: shown(e.urn),
    resourceName: shown(e.resourceName),
    ...(e.webhookName === undefined ? {} : { webhookName: shown(e.webhookName) }),
    ...(e.webhookUrl === undefined ? {} : { webhookUrl: shown(e.webhookUrl) }),
  });
  return {
    ...report,
    window: report.window && {
      ...report.window,
      ...(report.window.creators === undefined ? {} : { creators: report.window.creators.map(shown) }),
    },
    services: report.services.map((s) => ({
      ...s,
      service: shown(s.service),
      creators: s.creators.map(shown),
    })),
    recorded: report.recorded.map((r) => ({ ...r, ...entry(r), createTime: shown(r.createTime) })),
    cleared: report.cleared.map((c) => ({ ...c, ...entry(c), reason: reason(c.reason) })),
    ambiguous: report.ambiguous.map((a) => ({
      ...a,
      ...entry(a),
      reason: reason(a.reason),
      candidates: a.candidates.map((c) => ({
        webhookId: c.webhookId,
        createTime: shown(c.createTime),
        creatorId: shown(c.creatorId),
      })),
      ...(a.elsewhere === undefined
        ? {}
        : { elsewhere: { baseUrl: a.elsewhere.baseUrl === null ? null : shown(a.elsewhere.baseUrl) } }),
    })),
  };
}
