import { shellQuote } from "./adopt";
import { MAX_CELL, cell, isoTime, jsonText, table, type Sink } from "./output";

/** What `recover` found and did; `--json` prints it as it is. */
export interface RecoverReport {
  stack: string;
  project: string;
  /** Pending creates of WebhookEndpoint resources found in the state. */
  pendingCreates: number;
  /** `creators`: the stack's principal(s) as its state records them; empty when it shows none (then nothing is recorded unasked). */
  window: { since: string; source: string; skewMs: number; creators?: number[] } | null;
  lock: { holder: string; startedAt: string; verdict: "stale" | "live" | "unknown"; why: string; released: boolean } | null;
  /** Provider hosts the killed run left running in the project directory. */
  providers: { pid: number; engine: string; kind: "dynamic" | "native"; stopped: boolean }[];
  recorded: (Entry & { webhookId: number; createTime: number; how: string })[];
  cleared: (Entry & { reason: string })[];
  ambiguous: (Entry & { reason: string; candidates: { webhookId: number; createTime: number; creatorId: number }[] })[];
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
  webhookName?: string | undefined;
  webhookUrl?: string | undefined;
}

export function printReport(sink: Sink, report: RecoverReport, json: boolean): void {
  if (json) {
    sink.stdout(jsonText(report));
    return;
  }
  const lines: string[] = [];
  const would = report.dryRun ? "would be " : "";
  lines.push(`Stack ${report.stack} (project ${report.project}): ${report.pendingCreates} pending create(s) of webhook endpoints.`);
  if (report.repaired) lines.push(`Repaired: ${report.repaired.why}: ${report.dryRun ? "would remove" : "removed"} ${report.repaired.file}.`);
  if (report.lock) {
    const l = report.lock;
    lines.push(`Lock: taken by ${l.holder} at ${l.startedAt}; ${l.why}${l.released ? ": released (pulumi cancel)" : report.dryRun ? ": would be released" : ""}.`);
  }
  for (const p of report.providers) {
    lines.push(`Provider host left running by the killed run: pid ${p.pid} (${p.kind}; its engine ${p.engine} is gone)${p.stopped ? ": stopped, then waited for creates in flight to land" : report.dryRun ? ": would be stopped" : ": could not be stopped"}.`);
  }
  if (report.window) {
    const w = report.window;
    lines.push(
      `Window: endpoints created since ${w.since} (${w.source}), less ${Math.round(w.skewMs / 1000)} s for clock skew${w.creators && w.creators.length > 0 ? `, by creator ${w.creators.join(" or ")} (the stack's principal)` : w.creators ? ", by a creator the state cannot confirm (it records no principal of the stack: any match needs a person's --pick)" : ""}, held by no resource of the stack.`,
    );
  }
  if (report.recorded.length > 0) {
    lines.push("", `Recorded in state${report.dryRun ? " (dry run: would be)" : ""}: the endpoint each create made.`);
    lines.push(
      table(
        ["RESOURCE", "ID", "NAME", "URL", "CREATED"],
        report.recorded.map((r) => [cell(r.resourceName, MAX_CELL.name), String(r.webhookId), cell(r.webhookName ?? "", MAX_CELL.name), cell(r.webhookUrl ?? "", MAX_CELL.url), isoTime(r.createTime)]),
      ).trimEnd(),
    );
  }
  if (report.cleared.length > 0) {
    lines.push("", `Cleared${report.dryRun ? " (dry run: would be)" : ""}: the next \`pulumi up\` creates these.`);
    lines.push(table(["RESOURCE", "NAME", "WHY"], report.cleared.map((c) => [cell(c.resourceName, MAX_CELL.name), cell(c.webhookName ?? "", MAX_CELL.name), c.reason])).trimEnd());
  }
  if (report.ambiguous.length > 0) {
    lines.push("", "Not guessed (nothing was changed): a person must choose.");
    for (const a of report.ambiguous) {
      lines.push(`  ${cell(a.resourceName, MAX_CELL.name)} (${cell(a.webhookName ?? "", MAX_CELL.name)}, ${cell(a.webhookUrl ?? "", MAX_CELL.url)}): ${a.reason}`);
      for (const c of a.candidates) {
        lines.push(`    endpoint ${c.webhookId}, created ${isoTime(c.createTime)} by creator ${c.creatorId}:`);
        lines.push(`      webhooks recover --pick ${shellQuote(`${a.resourceName}=${c.webhookId}`)}`);
        lines.push(`      or declare it: webhooks adopt --id ${c.webhookId} --resource-name ${shellQuote(a.resourceName)}`);
      }
    }
  }
  if (report.droppedOperations > 0) lines.push("", `${report.droppedOperations} other pending operation(s) ${would}dropped, as the next update would drop them.`);
  if (report.pendingCreates === 0 && !report.lock && !report.repaired) lines.push("Nothing to recover: no pending creates of webhook endpoints and no lock.");
  else if (report.changed) lines.push("", "Done. Run `pulumi up`: it creates what was cleared and changes nothing that was recorded.");
  else if (report.dryRun && report.ambiguous.length === 0) lines.push("", "Dry run: nothing was changed. Run again with --yes to apply.");
  sink.stdout(`${lines.join("\n")}\n`);
}
