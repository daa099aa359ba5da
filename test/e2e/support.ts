import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BASE_DIR, E2E_DIR, REPO } from "./paths";

export const PASSPHRASE = "e2e-test-passphrase";
/** The marker Pulumi writes in place of a secret value in a state export. */
export const SECRET_SIG = "4dabf18193072939515e22adb298388d";

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Everything the CLI printed in this test file, for the plaintext-secret sweep. */
export const transcript: string[] = [];

/** A fresh `file://` backend and PULUMI_HOME per test file, inside the e2e directory. */
export function backendFor(suite: string): { backendUrl: string; home: string; dir: string } {
  const dir = join(E2E_DIR, "backends", suite);
  mkdirSync(join(dir, "state"), { recursive: true });
  mkdirSync(join(dir, "home"), { recursive: true });
  return { backendUrl: `file://${join(dir, "state")}`, home: join(dir, "home"), dir };
}

/** Runs the pulumi CLI non-interactively; never throws, the caller checks the exit code. */
export function pulumi(args: string[], options: { cwd: string; env: Record<string, string | undefined> }): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn("pulumi", [...args, "--non-interactive"], {
      cwd: options.cwd,
      env: { ...process.env, PULUMI_CONFIG_PASSPHRASE: PASSPHRASE, NO_COLOR: "1", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      // The command line of `config set --secret` is ours, not the CLI's output: keep the value out.
      const shown = args.includes("--secret") ? [...args.slice(0, -1), "<secret>"] : args;
      // --show-secrets reveals them on purpose, for the test to compare: not part of the sweep.
      const printed = args.includes("--show-secrets") ? "(output with secrets shown on request, not swept)" : `${stdout}\n${stderr}`;
      transcript.push(`$ pulumi ${shown.join(" ")}\n${printed}`);
      resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** A real Pulumi project made from one of examples/, below the base project that holds node_modules. */
export class Project {
  private constructor(
    readonly dir: string,
    readonly name: string,
    readonly env: Record<string, string | undefined>,
  ) {}

  static create(example: string, id: string, env: Record<string, string | undefined>, overrides: Record<string, string> = {}): Project {
    const dir = join(BASE_DIR, "projects", id);
    mkdirSync(dir, { recursive: true });
    const source = join(REPO, "examples", example);
    for (const file of ["Pulumi.yaml", "index.ts", "tsconfig.json"]) cpSync(join(source, file), join(dir, file));
    for (const [file, text] of Object.entries(overrides)) writeFileSync(join(dir, file), text);
    const name = /^name:\s*(\S+)/m.exec(readFileSync(join(dir, "Pulumi.yaml"), "utf8"))![1]!;
    return new Project(dir, name, env);
  }

  run(args: string[], extraEnv: Record<string, string | undefined> = {}): Promise<RunResult> {
    return pulumi(args, { cwd: this.dir, env: { ...this.env, ...extraEnv } });
  }

  /** Runs and fails the test with the CLI's own output when the exit code is not 0. */
  async ok(args: string[], extraEnv: Record<string, string | undefined> = {}): Promise<RunResult> {
    const result = await this.run(args, extraEnv);
    if (result.code !== 0) {
      throw new Error(`pulumi ${args.join(" ")} exited ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
    }
    return result;
  }

  async initStack(stack: string, config: Record<string, string> = {}, secrets: Record<string, string> = {}): Promise<void> {
    await this.ok(["stack", "init", stack]);
    for (const [key, value] of Object.entries(config)) await this.ok(["config", "set", key, value]);
    for (const [key, value] of Object.entries(secrets)) await this.ok(["config", "set", "--secret", key, value]);
  }

  async outputs(showSecrets = false): Promise<Record<string, unknown>> {
    const result = await this.ok(["stack", "output", "--json", ...(showSecrets ? ["--show-secrets"] : [])]);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }

  async exportState(): Promise<{ text: string; resources: { type: string; id?: string; outputs?: Record<string, unknown> }[] }> {
    const result = await this.ok(["stack", "export"]);
    const parsed = JSON.parse(result.stdout) as { deployment: { resources?: { type: string; id?: string; outputs?: Record<string, unknown> }[] } };
    return { text: result.stdout, resources: parsed.deployment.resources ?? [] };
  }
}

export function webhookResources(state: { resources: { type: string; id?: string; outputs?: Record<string, unknown> }[] }) {
  return state.resources.filter((r) => r.type === "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint");
}

/** Every file under a directory, as text (state files on disk, logs). */
export function readTree(dir: string): string {
  if (!existsSync(dir)) return "";
  let text = "";
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const stat = statSync(path);
    if (stat.isDirectory()) text += readTree(path);
    else if (stat.size < 50 * 1024 * 1024) text += readFileSync(path, "utf8");
  }
  return text;
}

/** The plaintext sweep: none of the secrets may appear in anything the runs produced. */
export function leaks(secrets: string[], haystacks: string[]): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    if (secret.length < 8) throw new Error("a secret under 8 characters cannot be searched for reliably");
    for (const hay of haystacks) if (hay.includes(secret)) found.push(`${secret.slice(0, 4)}… found`);
  }
  return found;
}
