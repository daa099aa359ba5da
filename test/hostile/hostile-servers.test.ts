// Hostile servers (test/hostile/servers.ts) against the public client and against the provider
// core through the dynamic face, each call in a child Node process of its own so that its peak
// memory is measured. Every call must end within a bound, stay under 256 MB resident, and show the
// caller only bounded, printable, token-free errors and notices. Prints a table for the notes.
// npm test runs the servers that push on the memory bound, one of each way to do it; npm run
// test:deep runs them all (test/support/tier.mts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOKEN } from "../support/helpers";
import { TIER } from "../support/tier.mjs";
import { runChild, type ChildCall, type ChildRun } from "./child-runner";
import { KNOWN_DEPARTURES } from "./oracle";
import { MAX_MESSAGE_CHARS, UNSHOWABLE } from "./safety";
import { hostileSpecs, startHostile, startOtherHost, type HostileSpec } from "./servers";

const RSS_LIMIT_MB = 256;
/** A call (3 s per attempt, one retry) must be over well within this; the child is killed at it. */
const CALL_BOUND_MS = 60_000;
/** Children at once (the machine has two cores; the servers run in this process). */
const PARALLEL = 2;
const CALLS: readonly ChildCall[] = [
  { face: "client", op: "listAll" },
  { face: "client", op: "scan" },
  { face: "client", op: "list" },
  { face: "client", op: "create" },
  { face: "dynamic", op: "read" },
  { face: "dynamic", op: "diff" },
  { face: "dynamic", op: "create" },
];
const callName = (call: ChildCall) => `${call.face}.${call.op}`;
/**
 * What npm test runs: endless pages of large records, one huge page, one huge body, one huge field, a
 * compression bomb, and millions of tiny values.
 */
const MEMORY_SERVERS = [
  "endless-fat-records",
  "page-50000",
  "body-9MB",
  "trace-id-10MB",
  "gzip-bomb",
  "tiny-values-8MB",
];

interface Row {
  server: string;
  call: string;
  peakMb: number;
  baselineMb: number;
  longestMessage: number;
  seconds: number;
  outcome: string;
  problems: string[];
  knownBug?: string;
}

/** What is wrong with one call's run, by the suite's rules. */
function problemsOf(
  spec: HostileSpec,
  op: string,
  run: ChildRun,
): { problem: string; kind: "token" | "rss" | "other" }[] {
  const problems: { problem: string; kind: "token" | "rss" | "other" }[] = [];
  const add = (problem: string, kind: "token" | "rss" | "other" = "other") =>
    problems.push({ problem, kind });
  if (run.killed) add(`did not end within ${CALL_BOUND_MS / 1000} s`);
  if (run.output.includes(TOKEN))
    add("the token appears in what the process printed (errors, notices or logs)", "token");
  const report = run.report;
  if (report === undefined) {
    add(`no report (exit without one): ${run.output.slice(-500)}`);
    return problems;
  }
  if (report.peakKb / 1024 >= RSS_LIMIT_MB) add(`peak RSS ${(report.peakKb / 1024).toFixed(0)} MB`, "rss");
  for (const error of report.errors) {
    const cut2001 =
      KNOWN_DEPARTURES.cutMessageIs2001Chars &&
      error.message.length === MAX_MESSAGE_CHARS + 1 &&
      error.message.endsWith("…");
    if (error.message.length > MAX_MESSAGE_CHARS && !cut2001)
      add(`${error.name} message of ${error.message.length} characters`);
    const bad = UNSHOWABLE.exec(error.message);
    if (bad) add(`${error.name} message holds U+${bad[0].codePointAt(0)!.toString(16).padStart(4, "0")}`);
    if (
      error.traceId !== undefined &&
      !/^[0-9a-fA-F]{32}$/.test(error.traceId) &&
      !(error.code === "WEBHOOK_PAGING_FAILED" && error.traceId === "")
    ) {
      add(`${error.name} traceId of ${error.traceId.length} characters`);
    }
  }
  for (const line of report.logs) {
    const bad = UNSHOWABLE.exec(line.replace(/\n/g, " "));
    if (bad || line.length > 4 * MAX_MESSAGE_CHARS)
      add(`a notice of ${line.length} characters${bad ? " holding a control character" : ""}`);
  }
  if (
    spec.listEnds !== undefined &&
    (op === "listAll" || op === "scan") &&
    report.outcome.summary !== spec.listEnds
  ) {
    add(
      `expected ${spec.listEnds}, got ${report.outcome.ok ? `a result (${report.outcome.summary})` : report.outcome.summary}`,
    );
  }
  return problems;
}

function table(rows: Row[]): string {
  const head = [
    "server",
    "call",
    "peak RSS MB",
    "over baseline MB",
    "longest error msg",
    "time s",
    "outcome",
  ];
  const body = rows.map((row) => [
    row.server,
    row.call,
    row.peakMb.toFixed(0),
    (row.peakMb - row.baselineMb).toFixed(0),
    String(row.longestMessage),
    row.seconds.toFixed(1),
    `${row.outcome}${row.knownBug ? `  [known bug ${row.knownBug}]` : ""}${row.problems.length > 0 && !row.knownBug ? `  [FAIL: ${row.problems.join("; ")}]` : ""}`,
  ]);
  const widths = head.map((title, i) => Math.max(title.length, ...body.map((cells) => cells[i]!.length)));
  const numeric = new Set([2, 3, 4, 5]);
  const format = (cells: string[]) =>
    cells
      .map((cell, i) =>
        i === cells.length - 1 ? cell : numeric.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!),
      )
      .join(" | ");
  return [
    format(head),
    widths.map((width, i) => "-".repeat(i === widths.length - 1 ? 7 : width)).join("-|-"),
    ...body.map(format),
  ].join("\n");
}

describe(
  "hostile servers against the client and the dynamic provider, each call in its own process",
  { tags: ["budgeted"] },
  () => {
    // HOSTILE_SERVERS=name,name runs only those servers (to replay one).
    const only = process.env.HOSTILE_SERVERS?.split(",").filter(Boolean);
    const all = hostileSpecs(TOKEN);
    const specs = all.filter((spec) =>
      only === undefined ? TIER === "deep" || MEMORY_SERVERS.includes(spec.name) : only.includes(spec.name),
    );

    it("the servers npm test runs are servers of this suite", () => {
      expect(MEMORY_SERVERS.filter((name) => !all.some((spec) => spec.name === name))).toEqual([]);
    });
    let otherHost: Awaited<ReturnType<typeof startOtherHost>>;
    beforeAll(async () => {
      otherHost = await startOtherHost();
    });
    afterAll(async () => {
      await otherHost.close();
    });

    it(
      "every call ends in time, under 256 MB, with bounded printable token-free errors",
      async () => {
        const rows: Row[] = [];
        let servedRequests = 0;
        for (const spec of specs) {
          const server = await startHostile(spec, TOKEN, { otherHost: otherHost.url });
          try {
            const queue = [...CALLS];
            const worker = async () => {
              for (let call = queue.shift(); call !== undefined; call = queue.shift()) {
                const run = await runChild(call, server.url, CALL_BOUND_MS);
                const found = problemsOf(spec, call.op, run);
                const report = run.report;
                // A known bug excuses only the kind of problem it is about; the row still shows it.
                const excused =
                  spec.knownBug !== undefined &&
                  found.length > 0 &&
                  found.every((p) => p.kind === spec.knownBug!.kind);
                rows.push({
                  server: spec.name,
                  call: callName(call),
                  peakMb: (report?.peakKb ?? 0) / 1024,
                  baselineMb: (report?.baselineKb ?? 0) / 1024,
                  longestMessage: Math.max(0, ...(report?.errors ?? []).map((error) => error.message.length)),
                  seconds: (report?.elapsedMs ?? run.wallMs) / 1000,
                  outcome:
                    report === undefined
                      ? run.killed
                        ? "KILLED"
                        : "CRASHED"
                      : report.outcome.ok
                        ? `ok: ${report.outcome.summary}`
                        : report.outcome.summary,
                  problems: found.map((p) => p.problem),
                  ...(excused
                    ? { knownBug: `${spec.knownBug!.id}: ${found.map((p) => p.problem).join("; ")}` }
                    : {}),
                });
              }
            };
            await Promise.all(Array.from({ length: PARALLEL }, worker));
          } finally {
            servedRequests += server.requests();
            await server.close();
          }
        }
        rows.sort(
          (a, b) =>
            specs.findIndex((s) => s.name === a.server) - specs.findIndex((s) => s.name === b.server) ||
            CALLS.findIndex((c) => callName(c) === a.call) - CALLS.findIndex((c) => callName(c) === b.call),
        );
        const worst = rows.reduce((max, row) => (row.peakMb > max.peakMb ? row : max), rows[0]!);
        console.log(
          `\nHostile servers: ${specs.length} servers x ${CALLS.length} calls = ${rows.length} child processes, ${servedRequests} requests served, ` +
            `${otherHost.hits()} requests reached the redirect's other host. Client: timeoutMs 3000, maxRetries 1, createSettleMs 500, other options default ` +
            `(pageSize 100, maxPages 1000, maxScanRecords 50000, maxScanBytes 32 MB); the dynamic face gets the same through stack config. ` +
            `Highest peak: ${worst.peakMb.toFixed(0)} MB (${worst.server}, ${worst.call}).\n\n${table(rows)}\n`,
        );
        expect(otherHost.hits(), "requests that followed the redirect to another host").toBe(0);
        const failing = rows.filter((row) => row.problems.length > 0 && row.knownBug === undefined);
        expect(failing.map((row) => `${row.server} ${row.call}: ${row.problems.join("; ")}`)).toEqual([]);
      },
      40 * 60_000,
    );
  },
);
