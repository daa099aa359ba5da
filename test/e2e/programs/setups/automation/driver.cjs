"use strict";
// A user's deployment script on the Automation API (@pulumi/pulumi/automation), run with `node`
// from the user's project directory, driving the real Pulumi CLI:
//
//   node driver.cjs inline          an inline program (a function in this script)
//   node driver.cjs local <workDir> the Pulumi project in <workDir>
//
// Environment: PULUMI_BACKEND_URL, PULUMI_CONFIG_PASSPHRASE (and PULUMI_HOME) as usual;
// DRIVER_PROJECT (the inline program's project name), DRIVER_BASE_URL, DRIVER_TOKEN,
// DRIVER_WEBHOOK_NAME, DRIVER_WEBHOOK_URL (set as stack config; the token as a secret).
//
// It runs up, preview, refresh and destroy, and prints one JSON line on stdout: what each step
// reported, the outputs (a secret's value only as its SHA-256, never in plaintext) and which
// @pulumi/pulumi the script and the package each loaded. A failure prints its message on stderr
// and exits 1.
const { createHash } = require("node:crypto");
const path = require("node:path");
const pulumi = require("@pulumi/pulumi");
const { LocalWorkspace } = require("@pulumi/pulumi/automation");
const { WebhookEndpoint } = require("pulumi-webhook-endpoints");

const [mode, workDir] = process.argv.slice(2);

/** @param {string} name */
function env(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** @param {unknown} value */
const sha256 = (value) => createHash("sha256").update(String(value)).digest("hex");

/** The inline program: one endpoint, its id and signing secret exported. */
async function program() {
  const config = new pulumi.Config();
  const orders = new WebhookEndpoint("orders", {
    webhookName: config.require("webhookName"),
    webhookUrl: config.require("webhookUrl"),
  });
  return { webhookId: orders.webhookId, signSecret: orders.signSecret };
}

/** @param {Record<string, { value: unknown, secret: boolean }>} outputs */
function describeOutputs(outputs) {
  return Object.fromEntries(
    Object.entries(outputs).map(([key, output]) => [
      key,
      output.secret ? { secret: true, sha256: sha256(output.value) } : { secret: false, value: output.value },
    ]),
  );
}

/** @param {import("@pulumi/pulumi/automation").Stack} stack */
async function webhookIds(stack) {
  const state = await stack.exportStack();
  /** @type {{ type: string, id?: string }[]} */
  const resources = state.deployment.resources ?? [];
  return resources
    .filter((r) => r.type === "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint")
    .map((r) => r.id);
}

async function main() {
  let stack;
  if (mode === "inline") {
    stack = await LocalWorkspace.createOrSelectStack({
      stackName: "dev",
      projectName: env("DRIVER_PROJECT"),
      program,
    });
  } else if (mode === "local" && workDir) {
    stack = await LocalWorkspace.createOrSelectStack({ stackName: "dev", workDir });
  } else {
    throw new Error("usage: node driver.cjs inline | node driver.cjs local <workDir>");
  }
  await stack.setAllConfig({
    "webhooks:baseUrl": { value: env("DRIVER_BASE_URL") },
    "webhooks:accessToken": { value: env("DRIVER_TOKEN"), secret: true },
    webhookName: { value: env("DRIVER_WEBHOOK_NAME") },
    webhookUrl: { value: env("DRIVER_WEBHOOK_URL") },
  });
  const up = await stack.up();
  const outputs = await stack.outputs();
  const preview = await stack.preview();
  const refresh = await stack.refresh();
  const idsAfterRefresh = await webhookIds(stack);
  const destroy = await stack.destroy();
  const idsAfterDestroy = await webhookIds(stack);
  const packageDir = path.dirname(require.resolve("pulumi-webhook-endpoints/package.json"));
  const report = {
    mode,
    workDir: stack.workspace.workDir,
    up: {
      result: up.summary.result,
      changes: up.summary.resourceChanges,
      outputs: describeOutputs(up.outputs),
    },
    outputs: describeOutputs(outputs),
    preview: preview.changeSummary,
    refresh: { result: refresh.summary.result, changes: refresh.summary.resourceChanges },
    idsAfterRefresh,
    destroy: { result: destroy.summary.result, changes: destroy.summary.resourceChanges },
    idsAfterDestroy,
    sdk: {
      version: require("@pulumi/pulumi/package.json").version,
      script: require.resolve("@pulumi/pulumi"),
      package: require.resolve("@pulumi/pulumi", { paths: [packageDir] }),
    },
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error) => {
  process.stderr.write(`driver ${mode} failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
