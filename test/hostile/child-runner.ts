/**
 * Runs one call of child.cjs (the client or the dynamic provider from dist/, against a server) in a
 * process of its own, and reads its report.
 */
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { TOKEN } from "../support/helpers";

const REPO = resolve(__dirname, "../..");
const CHILD = join(__dirname, "child.cjs");

export interface SeenError {
  name: string;
  code?: string;
  message: string;
  msg?: string;
  serviceCode?: string;
  traceId?: string;
  visible: string;
}

export interface ChildReport {
  outcome: { ok: boolean; summary: string };
  errors: SeenError[];
  /** What the code under test logged (console), e.g. the provider's notices. */
  logs: string[];
  elapsedMs: number;
  /** Peak resident set size (VmHWM), KB. */
  peakKb: number;
  /** Resident set size after loading the code, before the call, KB. */
  baselineKb: number;
}

export interface ChildRun {
  report?: ChildReport;
  /** Everything the process printed (stdout and stderr), up to 32 MB. */
  output: string;
  killed: boolean;
  wallMs: number;
}

export type ChildCall =
  | { face: "client"; op: "listAll" | "scan" | "list" | "create" }
  | { face: "dynamic"; op: "read" | "diff" | "create" };

/** Runs one call against `url`; the process is killed at `boundMs`. */
export function runChild(call: ChildCall, url: string, boundMs: number): Promise<ChildRun> {
  const started = Date.now();
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [CHILD, JSON.stringify({ ...call, url, repo: REPO })], {
      env: { ...process.env, HOSTILE_TOKEN: TOKEN, NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    const keep = (chunk: Buffer) => {
      if (size < 32 * 1024 * 1024) chunks.push(chunk);
      size += chunk.length;
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, boundMs);
    child.on("close", () => {
      clearTimeout(timer);
      const output = Buffer.concat(chunks).toString("utf8");
      const line = output.split("\n").find((text) => text.startsWith("@@REPORT@@"));
      const report =
        line === undefined ? undefined : (JSON.parse(line.slice("@@REPORT@@".length)) as ChildReport);
      resolvePromise({
        ...(report === undefined ? {} : { report }),
        output,
        killed,
        wallMs: Date.now() - started,
      });
    });
  });
}
