// The compiled CLI as a real child process: the URL line on stdout, a real HTTP call with the
// token, no token in the output, a clean exit on SIGTERM and --persist across a restart.
// dist/ is built by the vitest global setup.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { findListeningUrl } from "../../scripts/harness/emulator.mjs";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CREATE, LIST } from "./helpers";
import { waitUntil } from "../support/helpers";

const REPO = resolve(__dirname, "../..");
const BIN = join(REPO, "dist/emulator/bin.js");
const TOKEN = "proc-secret-7d1e93b0a4c25f68";

const dir = mkdtempSync(join(tmpdir(), "webhooks-emulator-process-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote so far, stdout and stderr. */
  output: () => string;
  /** Resolves to the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>;
}

const started: ChildProcess[] = [];
afterEach(() => {
  // Only our own children, by pid; normally they have already exited.
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
});

async function startBin(extra: string[] = []): Promise<Running> {
  const child = spawn(
    process.execPath,
    [BIN, "--port", "0", "--token", TOKEN, "--profile", "strict", ...extra],
    {
      cwd: REPO,
      env: { ...process.env, WEBHOOKS_ACCESS_TOKEN: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  started.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | string>((done) =>
    child.on("exit", (code, signal) => done(code ?? signal ?? "unknown")),
  );
  const firstLine = await new Promise<string>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`no URL line within 10 s; stdout=${stdout} stderr=${stderr}`)),
      10_000,
    );
    const check = () => {
      const newline = stdout.indexOf("\n");
      if (newline >= 0) {
        clearTimeout(timer);
        child.stdout.off("data", check);
        done(stdout.slice(0, newline));
      }
    };
    child.stdout.on("data", check);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`emulator exited (${code}) before printing its URL; stderr=${stderr}`));
    });
    check();
  });
  // The one parser of the "listening on" line (scripts/harness/emulator.mjs), as the demo and the engine tests use it.
  const url = findListeningUrl(`${firstLine}\n`);
  expect(url, `first stdout line: ${firstLine}`).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(Number(new URL(url!).port)).toBeGreaterThan(0);
  return { child, url: url!, output: () => stdout + stderr, exited };
}

async function post(url: string, path: string, body: unknown, authorization = TOKEN) {
  const response = await fetch(url + path, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as { code: string; data: unknown } };
}

const LIST_ALL = { cursor: "", limit: 10, webhook_name: "", webhook_url: "", ascending: "true" };

async function stop(running: Running): Promise<number | string> {
  expect(running.child.kill("SIGTERM")).toBe(true);
  return Promise.race([
    running.exited,
    new Promise<string>((done) => setTimeout(() => done("still running 5 s after SIGTERM"), 5000).unref()),
  ]);
}

describe("compiled bin as a child process", () => {
  it("prints its URL, serves a real list call, never prints the token, exits 0 on SIGTERM", async () => {
    expect(existsSync(BIN)).toBe(true);
    const running = await startBin();
    const reply = await post(running.url, LIST, LIST_ALL);
    expect(reply.status).toBe(200);
    expect(reply.json.code).toBe("200");
    expect(reply.json.data).toMatchObject({ data: [] });
    // The strict profile really is in force: a list without every field is refused.
    const partial = await post(running.url, LIST, { limit: 10 });
    expect(partial.json.code).not.toBe("200");
    // strict answers errors inside HTTP 200 (errorStyle envelope-200).
    const refused = await post(running.url, LIST, LIST_ALL, "wrong-token");
    expect(refused.json.code).toBe("40101");

    // The admin token is printed once, and opens the admin routes; without it they stay shut.
    const adminToken = /^admin token: ([0-9a-f]{32})$/m.exec(running.output())?.[1];
    expect(adminToken).toBeDefined();
    const counters = await fetch(`${running.url}/__emulator/counters`, {
      headers: { authorization: adminToken! },
    });
    expect(counters.status).toBe(200);
    expect(((await counters.json()) as { list: number }).list).toBe(3);
    expect((await fetch(`${running.url}/__emulator/counters`)).status).toBe(401);

    expect(await stop(running)).toBe(0);
    const output = running.output();
    expect(output.split(adminToken!)).toHaveLength(2);
    expect(output).toContain(`token: set (${TOKEN.length} chars)`);
    expect(output).toContain("webhooks emulator stopping (SIGTERM)");
    expect(output).not.toContain(TOKEN);
  });

  it("keeps records across a restart with --persist", async () => {
    const file = join(dir, "state.json");
    const first = await startBin(["--persist", file]);
    const made = await post(first.url, CREATE, {
      webhook_name: "persisted-hook",
      webhook_url: "https://example.com/persisted",
    });
    expect(made.json.code).toBe("200");
    const record = made.json.data as { webhook_id: number; sign_secret: string };
    expect(await stop(first)).toBe(0);
    expect(existsSync(file)).toBe(true);

    const second = await startBin(["--persist", file]);
    const listed = await post(second.url, LIST, LIST_ALL);
    expect(listed.json.code).toBe("200");
    expect((listed.json.data as { data: unknown[] }).data).toEqual([
      expect.objectContaining({
        webhook_id: record.webhook_id,
        webhook_name: "persisted-hook",
        webhook_url: "https://example.com/persisted",
        sign_secret: record.sign_secret,
      }),
    ]);
    expect(await stop(second)).toBe(0);
    expect(first.output() + second.output()).not.toContain(TOKEN);
  });

  it("--host 0.0.0.0: the listening line is a loopback URL the harness parses, the next says all interfaces; the access token does not open the admin routes", async () => {
    const running = await startBin(["--host", "0.0.0.0"]);
    const port = new URL(running.url).port;
    // The line after the listening line: wait until the child has printed it.
    const bound = `bound to 0.0.0.0:${port} (all IPv4 interfaces): other machines can reach it`;
    await waitUntil("the bin's bound-to line", () => running.output().includes(bound));
    expect(running.output()).toContain(bound);
    expect((await post(running.url, LIST, LIST_ALL)).json.code).toBe("200");
    const withApiToken = await fetch(`${running.url}/__emulator/counters`, {
      headers: { authorization: TOKEN },
    });
    expect(withApiToken.status).toBe(401);
    expect(await stop(running)).toBe(0);
  });

  it("--host 0.0.0.0 without a chosen token: exits 1 before listening, saying what to do", async () => {
    const env = { ...process.env };
    delete env.WEBHOOKS_ACCESS_TOKEN;
    const child = spawn(process.execPath, [BIN, "--port", "0", "--host", "0.0.0.0"], {
      cwd: REPO,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    started.push(child);
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    const code = await new Promise<number | string>((done) =>
      child.on("exit", (c, signal) => done(c ?? signal ?? "unknown")),
    );
    expect(code).toBe(1);
    expect(output).not.toMatch(/listening on/);
    expect(output).toMatch(
      /host 0\.0\.0\.0 is not a loopback interface.*--token <t> or WEBHOOKS_ACCESS_TOKEN/,
    );
  });
});
