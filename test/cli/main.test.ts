import { execFile } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands";
import { main, type MainIo } from "../../src/cli/main";
import { memorySink } from "../../src/cli/output/output";
import type { Emulator } from "../../src/emulator";
import { rawServer } from "../support/helpers";
import { TOKEN, cliEmulator, fakePulumi } from "./helpers";

const REPO = join(__dirname, "..", "..");
const BIN = join(REPO, "dist", "cli", "main.js");
const run = promisify(execFile);

const dir = mkdtempSync(join(tmpdir(), "webhooks-cli-main-"));
const noProject = join(dir, "plain");
const project = join(dir, "project");
mkdirSync(noProject);
mkdirSync(project);
writeFileSync(join(project, "Pulumi.yaml"), "name: main-test\nruntime: nodejs\n");

let emulator: Emulator;
beforeAll(async () => {
  emulator = await cliEmulator();
  emulator.addRecord({ webhook_name: "orders", webhook_url: "https://example.com/hooks/orders" });
});
afterAll(async () => {
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

function io(env: NodeJS.ProcessEnv, cwd = noProject, extra: Partial<MainIo> = {}) {
  const sink = memorySink();
  return {
    sink,
    io: { sink, env, cwd, pulumi: fakePulumi({}, { missing: true }), ...extra } satisfies MainIo,
  };
}

describe("webhooks: exit codes and dispatch", () => {
  it("--help prints the commands, the configuration places and the exit codes (0)", async () => {
    const { sink, io: args } = io({});
    expect(await main(["--help"], args)).toBe(0);
    expect(sink.out).toMatch(/list .*adopt .*recover .*orphans/s);
    expect(sink.out).toMatch(/--access-token TOKEN \(discouraged/);
    for (const line of [
      "0  success",
      "1  unexpected failure",
      "2  usage error",
      "3  configuration error",
      "4  the service failed or refused",
      "5  recover refused to guess",
    ]) {
      expect(sink.out).toContain(line);
    }
    expect(COMMANDS.map((c) => c.name)).toEqual(["list", "adopt", "recover", "orphans"]);
    for (const { name: command } of COMMANDS) {
      const each = io({});
      expect(await main([command, "--help"], each.io)).toBe(0);
      expect(each.sink.out).toMatch(new RegExp(`Usage: webhooks ${command}`));
      expect(each.sink.out).toContain("Exit codes:");
    }
  });

  it("usage errors exit 2: no command, an unknown one, an unknown flag, a bad value, a one-value flag twice", async () => {
    const cases: string[][] = [
      [],
      ["frobnicate"],
      ["list", "--nope"],
      ["list", "--match", "fuzzy"],
      ["list", "stray"],
      ["adopt"],
      ["adopt", "--id", "x"],
      ["adopt", "--id", "0"],
      ["adopt", "--id", "1", "--format", "hcl"],
      ["adopt", "--id", "1", "--resource-name=-x"],
      ["adopt", "--id", "1", "--resource-name", "a b"],
      ["recover", "--since", "yesterday"],
      ["recover", "--pick", "orders"],
      // A one-value flag given twice would otherwise keep the last silently.
      ["adopt", "--name", "a", "--name", "b"],
      ["list", "--url", "https://a.example", "--url=https://b.example"],
    ];
    for (const argv of cases) {
      const { sink, io: args } = io({ WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN });
      expect({ argv, code: await main(argv, args) }).toEqual({ argv, code: 2 });
      expect(sink.out).toBe("");
      expect(sink.err).not.toBe("");
    }
  });

  it("plugin-archive, gone from the package, is a usage error (2) that says where the archives come from now", async () => {
    for (const argv of [["plugin-archive"], ["plugin-archive", "--out", "plugins", "--platform", "all"]]) {
      const { sink, io: args } = io({});
      expect(await main(argv, args)).toBe(2);
      expect(sink.out).toBe("");
      expect(sink.err).toContain("plugin-archive is gone from the npm package");
      expect(sink.err).toContain("npm run release:archives");
      expect(sink.err).toContain("sha256sum -c --ignore-missing <checksums file>");
      expect(sink.err).toContain("pulumi plugin install resource webhooks <version> --file <archive>");
    }
    const help = io({});
    await main(["--help"], help.io);
    expect(help.sink.out).not.toContain("plugin-archive");
  });

  it("a missing setting exits 3 and names every place", async () => {
    const { sink, io: args } = io({});
    expect(await main(["list"], args)).toBe(3);
    expect(sink.err).toMatch(/--base-url.*webhooks:baseUrl.*WEBHOOKS_BASE_URL/);
  });

  it("a token the service refuses exits 4, saying where it came from and never what it is", async () => {
    const wrong = "wrong_token_9f8e7d6c5b4a";
    const { sink, io: args } = io({ WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: wrong });
    expect(await main(["list"], args)).toBe(4);
    expect(sink.err).toMatch(/environment variable WEBHOOKS_ACCESS_TOKEN/);
    expect(sink.out + sink.err).not.toContain(wrong);
  });

  it("a service that echoes the token back never gets it printed", async () => {
    const echo = await rawServer((req, _body, res) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          code: "50000",
          msg: `bad token ${String(req.headers.authorization)}`,
          trace_id: "0".repeat(32),
          data: {},
        }),
      );
    });
    try {
      const { sink, io: args } = io({
        WEBHOOKS_BASE_URL: echo.url,
        WEBHOOKS_ACCESS_TOKEN: TOKEN,
        WEBHOOKS_MAX_RETRIES: "0",
      });
      expect(await main(["list", "--access-token", TOKEN], args)).toBe(4);
      expect(sink.out + sink.err).not.toContain(TOKEN);
    } finally {
      await echo.close();
    }
  });

  it("list succeeds with 0; recover outside a project is a configuration error (3)", async () => {
    const ok = io({ WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN });
    expect(await main(["list", "--json"], ok.io)).toBe(0);
    expect(JSON.parse(ok.sink.out)).toMatchObject({ endpoints: [{ webhookId: 1, webhookName: "orders" }] });
    const recover = io({ WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN });
    expect(await main(["recover", "--dry-run"], recover.io)).toBe(3);
    expect(recover.sink.err).toMatch(/no Pulumi.yaml/);
    const noYes = io({ WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN }, project);
    expect(await main(["recover"], noYes.io)).toBe(2);
    expect(noYes.sink.err).toMatch(/pass --yes/);
  });
});

describe("the bin (node dist/cli/main.js), with a stand-in pulumi on PATH", () => {
  const binDir = join(dir, "bin");
  beforeAll(() => {
    mkdirSync(binDir, { recursive: true });
    // Prints the stack's config the way `pulumi config --json --show-secrets` does, and records its arguments.
    writeFileSync(
      join(binDir, "pulumi"),
      `#!/bin/sh\necho "$@" >> "${join(dir, "pulumi-args.log")}"\nif [ "$1" = config ]; then printf '%s' "$FAKE_PULUMI_CONFIG"; exit 0; fi\necho "fake pulumi: $1 not supported" >&2\nexit 1\n`,
    );
    chmodSync(join(binDir, "pulumi"), 0o755);
  });

  async function bin(
    args: string[],
    env: NodeJS.ProcessEnv,
    cwd: string,
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
        cwd,
        env: { PATH: `${binDir}${delimiter}${process.env.PATH ?? ""}`, ...env },
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  it("reads the stack's config through pulumi in a project, over the environment; exit codes reach the shell", async () => {
    const config = JSON.stringify({
      "webhooks:baseUrl": { value: emulator.url, secret: false },
      "webhooks:accessToken": { value: TOKEN, secret: true },
    });
    const viaStack = await bin(
      ["list", "--json", "--stack", "dev"],
      {
        FAKE_PULUMI_CONFIG: config,
        WEBHOOKS_BASE_URL: "http://127.0.0.1:9",
        WEBHOOKS_ACCESS_TOKEN: "unused_env_token",
      },
      project,
    );
    expect(viaStack.code).toBe(0);
    expect(JSON.parse(viaStack.stdout)).toMatchObject({ endpoints: [{ webhookId: 1 }] });
    expect(viaStack.stdout + viaStack.stderr).not.toContain(TOKEN);

    const missing = await bin(["list"], { FAKE_PULUMI_CONFIG: "{}" }, project);
    expect(missing.code).toBe(3);
    const usage = await bin(["list", "--bogus"], {}, noProject);
    expect(usage.code).toBe(2);
    const help = await bin(["--help"], {}, noProject);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Exit codes:");
  });
});
