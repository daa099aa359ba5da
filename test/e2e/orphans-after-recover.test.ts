// `webhooks orphans` learns what a stack held from the file backend's history checkpoints, and
// `pulumi stack import`, which `webhooks recover` writes its recorded endpoints with, writes no
// history checkpoint (nor a backup). So recover writes one of its own: an endpoint recover recorded,
// then dropped by the next update (removed, replaced, destroyed), is still known to orphans as the
// stack's, created by it and left behind, not "unrelated" (docs/operator-cli.md, "Endpoints left
// behind"). The operators' model-based test's invariant 3 (test/e2e/model-operators.test.ts), that
// orphans misses no endpoint the stack created and left behind, in one engine run.
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { runProcess } from "../../scripts/harness/process.mjs";
import { PASSPHRASE, Project } from "../../scripts/harness/pulumi.mjs";
import { processesIn, waitFor } from "./model-support";
import { BASE_DIR, REPO } from "./paths";
import { backendFor, transcript } from "./support";

const TOKEN = "orphans_recover_token_6f20c1d9";
const WEBHOOKS_BIN = join(BASE_DIR, "node_modules", ".bin", "webhooks");

describe("webhooks orphans after webhooks recover", () => {
  let emulator: Emulator | undefined;
  const dir = join(BASE_DIR, "projects", "orphans-after-recover");
  afterAll(async () => {
    for (const pid of processesIn(dir)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    await emulator?.close();
  });

  it("an endpoint recover recorded as created, then removed from the program, is left behind and ours", async () => {
    emulator = await startEmulator({ accessToken: TOKEN, creator: { id: 2001, name: "team-d" } });
    const backend = backendFor("orphans-after-recover");
    const env = { ...backend.env, WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN };
    const project = Project.create(join(REPO, "test/e2e/programs/model"), dir, { env, transcript });
    const declare = (endpoints: { resource: string; name: string; url: string }[]) =>
      writeFileSync(
        join(dir, "Pulumi.dev.yaml"),
        `config:\n  webhooks-model:endpoints: ${JSON.stringify(JSON.stringify(endpoints))}\n`,
      );
    const orders = { resource: "orders", name: "orders", url: "https://example.com/hooks/orders" };
    const payments = { resource: "payments", name: "payments", url: "https://example.com/hooks/payments" };
    await project.ok(["stack", "init", "dev"]);
    declare([orders]);
    // One endpoint created and recorded: recover then knows the stack's principal.
    await project.ok(["up", "--yes", "--skip-preview"]);

    // The next run is killed while the create of payments is at the service (it lands after the kill).
    declare([orders, payments]);
    emulator.configure({ faults: { create: { rate: 1, kinds: { latency: 1 }, slowMs: 2000 } } });
    const kill = new AbortController();
    const running = project.run(
      ["up", "--yes", "--skip-preview"],
      {},
      { signal: kill.signal, killSignal: "SIGKILL" },
    );
    const sent = await waitFor(
      () =>
        emulator!
          .requests()
          .some(
            (r) =>
              r.route === "create" &&
              (r.body as { webhook_name?: string } | null)?.webhook_name === "payments",
          ),
      120_000,
    );
    kill.abort();
    await running;
    emulator.configure({ faults: {} });
    expect(sent).toBe(true);
    expect(await waitFor(() => emulator!.records().some((r) => r.webhook_name === "payments"), 15_000)).toBe(
      true,
    );
    const created = emulator.records().find((r) => r.webhook_name === "payments")!;

    const cliEnv = {
      ...env,
      PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      PULUMI_CONFIG_PASSPHRASE_FILE: undefined,
      NO_COLOR: "1",
    };
    const recover = await runProcess(WEBHOOKS_BIN, ["recover", "--yes", "--json"], { cwd: dir, env: cliEnv });
    transcript.push(`$ webhooks recover --yes --json\n${recover.output}`);
    expect(recover.code, recover.output).toBe(0);
    expect(
      (JSON.parse(recover.stdout) as { recorded: { webhookId: number }[] }).recorded.map((r) => r.webhookId),
    ).toEqual([created.webhook_id]);

    // The program drops payments: the endpoint stays on the service, left behind by this stack.
    declare([orders]);
    await project.ok(["up", "--yes", "--skip-preview"]);
    const orphans = await runProcess(WEBHOOKS_BIN, ["orphans", "--stack", "dev", "--json"], {
      cwd: dir,
      env: cliEnv,
    });
    transcript.push(`$ webhooks orphans --stack dev --json\n${orphans.output}`);
    expect(orphans.code, orphans.output).toBe(0);
    const listed = (
      JSON.parse(orphans.stdout) as { orphans: { webhookId: number; relation: string; ours: boolean }[] }
    ).orphans;
    expect(listed.find((o) => o.webhookId === created.webhook_id)).toMatchObject({
      relation: "left-behind",
      ours: true,
    });
  });
});
