// A create answered with another team's endpoint, through the real engine: a service that keeps names unique
// answers a create of a taken name with the endpoint that has it. Another team creates the stack's
// new name and URL while the stack's create is held at the service; the stack must not take their
// endpoint. `up` diffs what the stack holds (an endpoint it created there, its creator the stack's
// principal) before it creates what is new, and the create's answer by another creator is refused:
// the run fails, the state holds nothing of theirs, and nothing was created twice.
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { Project } from "../../scripts/harness/pulumi.mjs";
import { waitFor } from "./model-support";
import { BASE_DIR, REPO } from "./paths";
import { backendFor, transcript, webhookResources } from "./support";
import { OTHER_TEAM, createAs, takenNameService } from "../support/helpers";

const TOKEN = "taken_answer_token_3b9e1c07";

describe("a unique-names service answering the stack's create with another team's endpoint (dynamic resource, real engine)", () => {
  let emulator: Emulator | undefined;
  afterAll(async () => {
    await emulator?.close();
  });

  it("up refuses it, records nothing of it, and creates nothing twice", async () => {
    emulator = await startEmulator({
      ...takenNameService(TOKEN, 4_000),
      creator: { id: 2001, name: "team-a" },
    });
    const backend = backendFor("taken-answer");
    const dir = join(BASE_DIR, "projects", "taken-answer");
    const project = Project.create(join(REPO, "test/e2e/programs/model"), dir, {
      env: { ...backend.env, WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN },
      transcript,
    });
    const declare = (endpoints: { resource: string; name: string; url: string }[], principalId?: number) =>
      writeFileSync(
        join(dir, "Pulumi.dev.yaml"),
        `config:\n  webhooks-model:endpoints: ${JSON.stringify(JSON.stringify(endpoints))}\n${principalId === undefined ? "" : `  webhooks:principalId: "${principalId}"\n`}`,
      );
    const base = { resource: "base", name: "base", url: "https://victim.example/base" };
    const x = { resource: "x", name: "x", url: "https://victim.example/x" };
    await project.ok(["stack", "init", "dev"]);
    declare([base]);
    await project.ok(["up", "--yes"]);

    declare([base, x]);
    emulator.injectNext("create", "latency");
    const running = project.run(["up", "--yes"]);
    expect(
      await waitFor(
        () =>
          emulator!
            .requests()
            .some(
              (r) =>
                r.route === "create" && (r.body as { webhook_name?: string } | null)?.webhook_name === "x",
            ),
        120_000,
      ),
    ).toBe(true);
    const theirsId = (
      await createAs(emulator.url, OTHER_TEAM.token, { webhookName: x.name, webhookUrl: x.url })
    ).webhook_id;
    const result = await running;
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.code, output).not.toBe(0);
    expect(output).toMatch(
      new RegExp(`answered this create with endpoint ${theirsId}, created by creator 200`),
    );
    expect(output).toMatch(/were created by 2001/);
    expect(output).not.toContain(TOKEN);
    // The state holds the stack's base and nothing of theirs; the service holds one x, theirs.
    const held = webhookResources(await project.exportState());
    expect(
      held.map((r: { outputs?: { webhookName?: string; creatorId?: number } }) => [
        r.outputs?.webhookName,
        r.outputs?.creatorId,
      ]),
    ).toEqual([["base", 2001]]);
    expect(
      emulator
        .records()
        .filter((r) => r.webhook_name === "x")
        .map((r) => r.creator_id),
    ).toEqual([200]);

    // `up --target` diffs nothing else, so no endpoint of the stack shows its principal: with
    // webhooks:principalId set, the answer is refused all the same.
    const y = { resource: "y", name: "y", url: "https://victim.example/y" };
    declare([base, y], 2001);
    emulator.injectNext("create", "latency");
    const targeted = project.run([
      "up",
      "--yes",
      "--target",
      "urn:pulumi:dev::webhooks-model::pulumi-nodejs:dynamic/webhooks:WebhookEndpoint::y",
    ]);
    expect(
      await waitFor(
        () =>
          emulator!
            .requests()
            .some(
              (r) =>
                r.route === "create" && (r.body as { webhook_name?: string } | null)?.webhook_name === "y",
            ),
        120_000,
      ),
    ).toBe(true);
    await createAs(emulator.url, OTHER_TEAM.token, { webhookName: y.name, webhookUrl: y.url });
    const second = await targeted;
    const secondOutput = `${second.stdout}\n${second.stderr}`;
    expect(second.code, secondOutput).not.toBe(0);
    expect(secondOutput).toMatch(/created by creator 200, but stack config webhooks:principalId is 2001/);
    expect(
      webhookResources(await project.exportState()).map(
        (r: { outputs?: { webhookName?: string } }) => r.outputs?.webhookName,
      ),
    ).toEqual(["base"]);
  });
});
