// Facts before claims, through the real engine and the real `webhooks` binary (docs/reliability.md, "Facts
// before claims").
// A `webhooks:principalId` that contradicts what the state records (this stack created endpoint
// base, by creator 2001) is refused before any create is sent, by preview and by up, naming both; an
// `up --target-replace` of an unchanged endpoint says why that replacement cannot be made; and the
// stack's identity survives `pulumi stack rename` while an endpoint `pulumi state move` brings in from
// another stack stays that stack's, so `webhooks recover` still learns the stack's principal after a
// rename, from its own endpoints only, and refuses a principalId they contradict.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { processesIn, waitFor } from "./model-support";
import { startEmulator, type Emulator } from "../../src/emulator";
import { runProcess } from "../../scripts/harness/process.mjs";
import { PASSPHRASE, Project } from "../../scripts/harness/pulumi.mjs";
import { OTHER_TEAM, createAs } from "../support/helpers";
import { BASE_DIR, REPO } from "./paths";
import { backendFor, transcript, webhookResources } from "./support";

const TOKEN = "principal_claims_token_8d41e6a2";
const WEBHOOKS_BIN = join(BASE_DIR, "node_modules", ".bin", "webhooks");
const TYPE = "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint";
/** A resource reference in a state: the signature key and value Pulumi's own state format uses. */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const ROOT_REFERENCE = "5cf8f73096256a8f31e491e813e4eb8e";

type Endpoint = { resource: string; name: string; url: string };

/** test/e2e/programs/model/index.js, its endpoints read from CLAIMS_ENDPOINTS. */
const PROGRAM = `"use strict";
const { WebhookEndpoint } = require("pulumi-webhook-endpoints");
const ids = {};
for (const endpoint of JSON.parse(process.env.CLAIMS_ENDPOINTS ?? "[]")) {
  ids[endpoint.resource] = new WebhookEndpoint(endpoint.resource, {
    webhookName: endpoint.name,
    webhookUrl: endpoint.url,
  }).webhookId;
}
exports.ids = ids;
`;
type StateResource = {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  [key: string]: unknown;
};

describe("a principalId checked against what the state records (dynamic resource, real engine)", () => {
  let emulator: Emulator | undefined;
  const dir = join(BASE_DIR, "projects", "principal-claims");
  afterAll(async () => {
    // A provider host the killed run left, if recover did not stop it.
    for (const pid of processesIn(dir)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    await emulator?.close();
  });

  it("refused before any create; --target-replace explained; the stack's facts survive a rename, a moved endpoint's do not", async () => {
    emulator = await startEmulator({
      accessToken: TOKEN,
      creator: { id: 2001, name: "team-a" },
      principals: [{ token: OTHER_TEAM.token, creator: { ...OTHER_TEAM.creator } }],
    });
    const backend = backendFor("principal-claims");
    const env = { ...backend.env, WEBHOOKS_BASE_URL: emulator.url, WEBHOOKS_ACCESS_TOKEN: TOKEN };
    // The model program, its endpoints taken from the environment instead of the stack config: the
    // dynamic provider's default provider records the whole stack config as its inputs, and `pulumi
    // state move` refuses to move a resource into a stack whose provider has other inputs.
    const project = Project.create(join(REPO, "test/e2e/programs/model"), dir, {
      env,
      transcript,
      overrides: { "index.js": PROGRAM },
    });
    let declared: Endpoint[] = [];
    const declare = (stack: string, endpoints: Endpoint[], principalId?: number) => {
      declared = endpoints;
      writeFileSync(
        join(dir, `Pulumi.${stack}.yaml`),
        principalId === undefined ? "config: {}\n" : `config:\n  webhooks:principalId: "${principalId}"\n`,
      );
    };
    const run = (
      args: string[],
      extraEnv: Record<string, string> = {},
      extras: { signal?: AbortSignal; killSignal?: NodeJS.Signals } = {},
    ) => project.run(args, { CLAIMS_ENDPOINTS: JSON.stringify(declared), ...extraEnv }, extras);
    const ok = (args: string[], extraEnv: Record<string, string> = {}) =>
      project.ok(args, { CLAIMS_ENDPOINTS: JSON.stringify(declared), ...extraEnv });
    const creates = () => emulator!.requests().filter((r) => r.route === "create").length;
    const base = { resource: "base", name: "base", url: "https://claims.example/base" };
    const x = { resource: "x", name: "x", url: "https://claims.example/x" };
    await project.ok(["stack", "init", "dev"]);
    declare("dev", [base]);
    await ok(["up", "--yes", "--skip-preview"]);
    const baseId = emulator.records().find((r) => r.webhook_name === "base")!.webhook_id;

    // A mistyped principalId, with a new endpoint and a replacement (base's URL changed) to create:
    // preview and up refuse it, naming both, and no create reaches the service.
    declare("dev", [{ ...base, url: "https://claims.example/base-v2" }, x], 2010);
    const sent = creates();
    for (const command of [["preview"], ["up", "--yes"]]) {
      const result = await run(command);
      const output = `${result.stdout}\n${result.stderr}`;
      expect(result.code, output).not.toBe(0);
      expect(output).toContain("stack config webhooks:principalId is 2010");
      expect(output).toContain(`endpoint ${baseId} (named "base")`);
      expect(output).toContain("as created by creator 2001");
      expect(output).toContain("nothing was sent to the service");
      expect(output).not.toContain(TOKEN);
    }
    expect(creates()).toBe(sent);
    expect(emulator.records().map((r) => r.webhook_name)).toEqual(["base"]);

    // --target-replace of base, unchanged: the replacement would be a second endpoint with its name
    // and URL; the error says so and what to do, and nothing is created or lost.
    declare("dev", [base]);
    const replaced = await run([
      "up",
      "--yes",
      "--target-replace",
      `urn:pulumi:dev::webhooks-model::${TYPE}::base`,
    ]);
    const replacedOutput = `${replaced.stdout}\n${replaced.stderr}`;
    expect(replaced.code, replacedOutput).not.toBe(0);
    expect(replacedOutput).toContain(`If this stack's state holds endpoint ${baseId}`);
    expect(replacedOutput).toContain("`pulumi up --target-replace`");
    expect(replacedOutput).toMatch(/would be a second endpoint with the same name and URL/);
    expect(replacedOutput).toContain("change webhookName or webhookUrl to replace it");
    expect(replacedOutput).toContain("run `pulumi refresh` instead");
    expect(replacedOutput).not.toContain("does not hold it");
    expect(creates()).toBe(sent);
    expect(
      webhookResources(await project.exportState()).map((r) => r.id),
      "base is still held",
    ).toEqual([String(baseId)]);

    // Another stack of the project, another team's token, creates "moved"; `pulumi state move` brings
    // it into dev; then dev is renamed prod.
    const moved = { resource: "moved", name: "moved", url: "https://claims.example/moved" };
    const otherEnv = { WEBHOOKS_ACCESS_TOKEN: OTHER_TEAM.token };
    await project.ok(["stack", "init", "other"], otherEnv);
    declare("other", [moved]);
    await ok(["up", "--yes", "--skip-preview", "--stack", "other"], otherEnv);
    await project.ok([
      "state",
      "move",
      "--yes",
      "--source",
      "other",
      "--dest",
      "dev",
      `urn:pulumi:other::webhooks-model::${TYPE}::moved`,
    ]);
    await project.ok(["stack", "rename", "prod", "--stack", "dev"]);
    await project.ok(["stack", "select", "prod"]);
    declare("prod", [base, moved]);
    const roots = Object.fromEntries(
      webhookResources(await project.exportState()).map((r) => [
        (r.urn ?? "").slice((r.urn ?? "").lastIndexOf("::") + 2),
        r.outputs?.stackRoot as Record<string, unknown>,
      ]),
    );
    // References to the stack's root: the engine rewrote the stack's own to its new name, and left the
    // moved one naming the stack it came from.
    expect(roots.base).toMatchObject({
      [SIG_KEY]: ROOT_REFERENCE,
      urn: "urn:pulumi:prod::webhooks-model::pulumi:pulumi:Stack::webhooks-model-prod",
    });
    expect(roots.moved).toMatchObject({
      [SIG_KEY]: ROOT_REFERENCE,
      urn: "urn:pulumi:other::webhooks-model::pulumi:pulumi:Stack::webhooks-model-other",
    });

    // The renamed stack still knows its facts: the mistyped principalId is refused as before.
    declare("prod", [base, moved, x], 2010);
    const renamedPreview = await run(["preview"]);
    expect(renamedPreview.code).not.toBe(0);
    expect(`${renamedPreview.stdout}\n${renamedPreview.stderr}`).toContain(
      `endpoint ${baseId} (named "base")`,
    );
    // ...while the moved endpoint (creator 200) is no fact of this stack: principalId 2001 is not refused.
    declare("prod", [base, moved], 2001);
    await ok(["preview", "--expect-no-changes"]);

    // A run killed while its create of x is held at the service: x lands after the kill, and the
    // other team creates the same name and URL meanwhile.
    declare("prod", [base, moved, x]);
    emulator.configure({ faults: { create: { rate: 1, kinds: { latency: 1 }, slowMs: 2_000 } } });
    const kill = new AbortController();
    const killed = run(["up", "--yes", "--skip-preview"], {}, { signal: kill.signal, killSignal: "SIGKILL" });
    const createOf = (name: string) => () =>
      emulator!
        .requests()
        .some(
          (r) => r.route === "create" && (r.body as { webhook_name?: string } | null)?.webhook_name === name,
        );
    expect(await waitFor(createOf("x"), 120_000)).toBe(true);
    kill.abort();
    await killed;
    emulator.configure({ faults: {} });
    expect(await waitFor(() => emulator!.records().some((r) => r.webhook_name === "x"), 30_000)).toBe(true);
    const ours = emulator.records().find((r) => r.webhook_name === "x")!.webhook_id;
    await createAs(emulator.url, OTHER_TEAM.token, { webhookName: x.name, webhookUrl: x.url });

    const recover = (principalId?: number) => {
      declare("prod", [base, moved, x], principalId);
      return runProcess(WEBHOOKS_BIN, ["recover", "--yes", "--json"], {
        cwd: dir,
        env: {
          ...env,
          PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
          PULUMI_CONFIG_PASSPHRASE_FILE: undefined,
          NO_COLOR: "1",
        },
      });
    };
    // Refused on the same conflict, naming both; nothing written (the pending create is still there).
    const refused = await recover(2010);
    transcript.push(`$ webhooks recover --yes --json\n${refused.output}`);
    expect(refused.code, refused.output).toBe(5);
    expect(refused.output).toContain("stack config webhooks:principalId is 2010");
    expect(refused.output).toContain(
      `endpoint ${baseId} (resource urn:pulumi:prod::webhooks-model::${TYPE}::base)`,
    );
    expect(refused.output).toContain("nothing was changed");
    const after = JSON.parse((await project.ok(["stack", "export"])).stdout) as {
      deployment: { resources: StateResource[]; pending_operations?: { resource: StateResource }[] };
    };
    expect(after.deployment.pending_operations?.map((op) => op.resource.urn)).toEqual([
      `urn:pulumi:prod::webhooks-model::${TYPE}::x`,
    ]);
    expect(after.deployment.resources.some((r) => r.urn.endsWith("::x"))).toBe(false);
    // With none: the renamed stack's own endpoint shows its principal (2001), the moved one (200)
    // does not dispute it, and the killed run's endpoint is recorded, not the other team's.
    const recovered = await recover();
    transcript.push(`$ webhooks recover --yes --json\n${recovered.output}`);
    expect(recovered.code, recovered.output).toBe(0);
    const report = JSON.parse(recovered.stdout) as {
      recorded: { webhookId: number }[];
      services: { creators: number[] }[];
    };
    expect(report.services.map((s) => s.creators)).toEqual([[2001]]);
    expect(report.recorded.map((r) => r.webhookId)).toEqual([ours]);

    // principalId set with --secret (docs/configuration.md): the creatorId and operatorId of an
    // endpoint the dynamic resource creates hold that secret, so the state holds them secret too.
    await project.ok(["config", "set", "--secret", "webhooks:principalId", "2001"]);
    const y = { resource: "y", name: "y", url: "https://claims.example/y" };
    declared = [base, moved, x, y];
    await ok(["up", "--yes", "--skip-preview"]);
    const plain = JSON.parse((await project.ok(["stack", "export"])).stdout) as {
      deployment: { resources: StateResource[] };
    };
    const made = plain.deployment.resources.find((r) => r.urn.endsWith("::y"))!;
    for (const output of ["creatorId", "operatorId"])
      expect(made.outputs?.[output], output).toMatchObject({ ciphertext: expect.any(String) });
  });
});
