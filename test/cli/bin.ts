// The `webhooks` bin as a user runs it (`node dist/cli/main.js`), in a project directory, with a
// stand-in `pulumi` on PATH that answers from files: per stack, what `pulumi config --json
// --show-secrets` and `pulumi stack export [--show-secrets]` print. Only what the CLI asks of pulumi
// is answered; anything else fails as pulumi would, so a test sees what the CLI really runs.
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";

const REPO = join(__dirname, "..", "..");
const BIN = join(REPO, "dist", "cli", "main.js");
const run = promisify(execFile);

/** Runs `webhooks <args>` in `cwd` with exactly the environment `env`; never throws for a non-zero exit. */
export async function runWebhooks(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** What one stack of the stand-in pulumi holds. */
export interface FakeStackFiles {
  /** As `pulumi config --json --show-secrets` prints it: `{ "<key>": { value, secret } }`. */
  config: Record<string, { value: unknown; secret: boolean }>;
  /** As `pulumi stack export --show-secrets` prints it. */
  state: unknown;
}

// Finds `--stack S` among the arguments (else the current stack, "dev") and answers from its files.
const SCRIPT = `#!/bin/sh
stack=dev
prev=
for arg in "$@"; do
  if [ "$prev" = "--stack" ]; then stack="$arg"; fi
  prev="$arg"
done
dir="$FAKE_PULUMI_DIR/stacks/$stack"
echo "$*" >> "$FAKE_PULUMI_DIR/calls.log"
case "$1 $2" in
  "config --json") cat "$dir/config.json" ;;
  "stack export") cat "$dir/state.json" ;;
  "stack --show-name") echo "$stack" ;;
  "whoami --json") printf '{"user":"ci","url":"%s"}' "\${FAKE_PULUMI_BACKEND:-s3://bucket}" ;;
  *) echo "error: fake pulumi does not know \\"$*\\"" >&2; exit 255 ;;
esac
`;

export interface BinProject {
  /** The project directory (a Pulumi.yaml in it). */
  dir: string;
  /** Runs `webhooks <args>` there; never throws for a non-zero exit. */
  webhooks(
    args: string[],
    env?: NodeJS.ProcessEnv,
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  /** The pulumi commands the CLI ran, one line each. */
  calls(): string[];
  cleanup(): void;
}

/**
 * A project whose stand-in pulumi knows `stacks` (by name). `backend`: the backend URL `pulumi
 * whoami` names (a `file://` one makes the CLI read its history checkpoints); default `s3://bucket`.
 */
export function binProject(stacks: Record<string, FakeStackFiles>, backend?: string): BinProject {
  const root = mkdtempSync(join(tmpdir(), "webhooks-bin-"));
  const dir = join(root, "project");
  const bin = join(root, "bin");
  mkdirSync(dir, { recursive: true });
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(dir, "Pulumi.yaml"), "name: shop\nruntime: nodejs\n");
  writeFileSync(join(bin, "pulumi"), SCRIPT);
  chmodSync(join(bin, "pulumi"), 0o755);
  writeFileSync(join(root, "calls.log"), "");
  for (const [name, files] of Object.entries(stacks)) {
    const stackDir = join(root, "stacks", name);
    mkdirSync(stackDir, { recursive: true });
    writeFileSync(join(stackDir, "config.json"), JSON.stringify(files.config));
    writeFileSync(join(stackDir, "state.json"), JSON.stringify(files.state));
  }
  return {
    dir,
    webhooks: (args, env = {}) =>
      runWebhooks(args, dir, {
        PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`,
        HOME: root,
        FAKE_PULUMI_DIR: root,
        ...(backend === undefined ? {} : { FAKE_PULUMI_BACKEND: backend }),
        ...env,
      }),
    calls: () => readFileSync(join(root, "calls.log"), "utf8").split("\n").filter(Boolean),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A value as `pulumi stack export --show-secrets` writes a secret. */
export function revealedSecret(value: unknown): Record<string, unknown> {
  return {
    "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
    plaintext: JSON.stringify(value),
  };
}
