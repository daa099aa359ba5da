import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { startPostgres } from "./postgres";
import { backendFor, createProject, leaks, transcript } from "./support";

const TOKEN = "e2e_tok_pipeline_91b2c4d6e8";

/**
 * The pipeline scenario: producer and consumer applied as separate non-interactive processes
 * against a real PostgreSQL state backend, with every setting from environment variables and
 * every exit code checked, as a CI job would run them.
 */
describe("pipeline: PostgreSQL state backend, configuration from the environment only", () => {
  let emulator: Emulator;
  let postgres: Awaited<ReturnType<typeof startPostgres>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    emulator = await startEmulator({ accessToken: TOKEN });
    postgres = await startPostgres();
    const home = join(backendFor("pipeline").dir, "home");
    mkdirSync(home, { recursive: true });
    env = {
      PULUMI_BACKEND_URL: postgres.url,
      PULUMI_HOME: home,
      WEBHOOKS_BASE_URL: emulator.url,
      WEBHOOKS_ACCESS_TOKEN: TOKEN,
      PRODUCER_STACK: "organization/webhooks-producer/ci",
    };
  });
  afterAll(async () => {
    postgres?.stop();
    await emulator?.close();
  });

  it("producer then consumer, each a separate process, exit codes 0, the secret delivered and still secret", async () => {
    const producer = createProject("multi-stack/producer", "pipeline-producer", env);
    const consumer = createProject("multi-stack/consumer", "pipeline-consumer", env);

    const steps = [
      await producer.run(["stack", "select", "--create", "ci"]),
      await producer.run(["up", "--yes"]),
      await consumer.run(["stack", "select", "--create", "ci"]),
      await consumer.run(["up", "--yes"]),
    ];
    expect(steps.map((s) => s.code)).toEqual([0, 0, 0, 0]);
    const record = emulator.records()[0]!;
    expect(emulator.records()).toHaveLength(1);

    const outputs = await consumer.outputs();
    expect(outputs.receivedSignSecret).toBe("[secret]");
    expect(outputs.secretArrivedAsSecret).toBe(true);
    expect(outputs.producerWebhookId).toBe(record.webhook_id);
    expect((await consumer.outputs(true)).receivedSignSecret).toBe(record.sign_secret);
    console.log(`pipeline step times (ms): ${steps.map((s) => s.ms).join(", ")}`);
  });

  it("a second run of the pipeline changes nothing, and a failing job exits non-zero", async () => {
    const producer = createProject("multi-stack/producer", "pipeline-producer", env);
    const rerun = await producer.run(["preview", "--expect-no-changes", "--stack", "ci"]);
    expect(rerun.code).toBe(0);
    const up = await producer.run(["up", "--yes", "--stack", "ci"]);
    expect(up.code).toBe(0);
    expect(emulator.counters().create).toBe(1);

    const consumer = createProject("multi-stack/consumer", "pipeline-consumer", env);
    const broken = await consumer.run(["up", "--yes", "--stack", "ci"], {
      PRODUCER_STACK: "organization/webhooks-producer/missing",
    });
    expect(broken.code).not.toBe(0);
    const noToken = await producer.run(["preview", "--stack", "ci"], { WEBHOOKS_ACCESS_TOKEN: "" });
    expect(noToken.code).not.toBe(0);
    expect(noToken.stdout + noToken.stderr).toMatch(/WEBHOOKS_ACCESS_TOKEN/);
  });

  it("nothing the pipeline printed holds the token or the signing secret", () => {
    expect(leaks([TOKEN, ...emulator.records().map((r) => r.sign_secret)], [transcript.join("\n")])).toEqual(
      [],
    );
  });
});
