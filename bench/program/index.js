// @ts-check
"use strict";
// The benchmark program (bench/run.mjs copies it into .e2e/bench/base/projects/<kind>/).
//   bench:count  number of endpoints
//   bench:kind   "ours"  -> WebhookEndpoint from the packed package
//                "floor" -> a no-op dynamic resource with the same inputs, the same outputs and
//                           the same additionalSecretOutputs: what the engine costs by itself,
//                           declared as pulumi.dynamic.Resource (Pulumi serializes the provider);
//                "lean"  -> the same no-op provider registered the way WebhookEndpoint registers
//                           itself: its methods' text in __provider, written out here, no serializer.
const pulumi = require("@pulumi/pulumi");

const config = new pulumi.Config("bench");
const count = config.requireNumber("count");
const kind = config.require("kind");

// Serialized into every floor resource's __provider like any inline dynamic provider: each
// function is self-contained (the closure serializer would inline anything it captures).
/** @typedef {{ webhookName: string, webhookUrl: string }} FloorInputs */
/** @typedef {FloorInputs & { webhookId: number, signSecret: string }} FloorOutputs */
/** @type {import("@pulumi/pulumi").dynamic.ResourceProvider<FloorInputs, FloorOutputs>} */
const floorProvider = {
  create: async (inputs) => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let secret = "whsec_";
    for (let i = 0; i < 43; i++) secret += alphabet[Math.floor(Math.random() * 64)];
    const webhookId = 1 + Math.floor(Math.random() * 2 ** 40);
    const now = Date.now();
    return {
      id: String(webhookId),
      outs: {
        webhookId,
        webhookName: inputs.webhookName,
        webhookUrl: inputs.webhookUrl,
        signSecret: secret,
        creatorId: 1001,
        creatorName: "open-api",
        createTime: now,
        operatorId: 1001,
        operatorName: "open-api",
        operateTime: now,
      },
    };
  },
  diff: async () => ({ changes: false }),
  read: async (id, props) => (props === undefined ? { id } : { id, props }),
  delete: async () => {},
};

/**
 * The props object and options WebhookEndpoint builds, for both floors: the declared name and URL,
 * every output undefined, and signSecret and connection forced into additionalSecretOutputs.
 * @param {string} name
 * @param {{ webhookName?: string, webhookUrl: string }} args
 * @param {import("@pulumi/pulumi").CustomResourceOptions} opts
 */
function endpointRegistration(name, args, opts) {
  const props = {
    webhookName: args.webhookName ?? name,
    webhookUrl: args.webhookUrl,
    adoptWebhookId: undefined,
    connection: undefined,
    webhookId: undefined,
    signSecret: undefined,
    creatorId: undefined,
    creatorName: undefined,
    createTime: undefined,
    operatorId: undefined,
    operatorName: undefined,
    operateTime: undefined,
  };
  const additionalSecretOutputs = [
    ...new Set([...(opts.additionalSecretOutputs ?? []), "signSecret", "connection"]),
  ];
  return { props, opts: { ...opts, additionalSecretOutputs } };
}

class FloorEndpoint extends pulumi.dynamic.Resource {
  /**
   * @param {string} name
   * @param {{ webhookName?: string, webhookUrl: string }} args
   * @param {import("@pulumi/pulumi").CustomResourceOptions} [opts]
   */
  constructor(name, args, opts = {}) {
    const registration = endpointRegistration(name, args, opts);
    super(floorProvider, name, registration.props, registration.opts, "webhooks", "WebhookEndpoint");
    // Declares the output's type for tsc only: the SDK set it from props, and an assignment here would replace it.
    /** @type {import("@pulumi/pulumi").Output<number>} */
    // eslint-disable-next-line @typescript-eslint/no-unused-expressions -- a declaration without an assignment
    this.webhookId;
  }
}

// The no-op provider as module text, for the lean floor: the host evaluates it and calls handler().
const LEAN_TEXT = `exports.handler = () => ({ create: ${String(floorProvider.create)}, diff: ${String(floorProvider.diff)}, read: ${String(floorProvider.read)}, delete: ${String(floorProvider.delete)} });\n`;

class LeanFloorEndpoint extends pulumi.CustomResource {
  /**
   * @param {string} name
   * @param {{ webhookName?: string, webhookUrl: string }} args
   * @param {import("@pulumi/pulumi").CustomResourceOptions} [opts]
   */
  constructor(name, args, opts = {}) {
    const registration = endpointRegistration(name, args, opts);
    super(
      "pulumi-nodejs:dynamic/webhooks:WebhookEndpoint",
      name,
      { ...registration.props, __provider: LEAN_TEXT },
      registration.opts,
    );
    // Declares the output's type for tsc only, as in FloorEndpoint.
    /** @type {import("@pulumi/pulumi").Output<number>} */
    // eslint-disable-next-line @typescript-eslint/no-unused-expressions -- a declaration without an assignment
    this.webhookId;
  }
}

if (kind !== "ours" && kind !== "floor" && kind !== "lean")
  throw new Error(`bench:kind must be "ours", "floor" or "lean", got "${kind}"`);
// The installed package (from the tarball), loaded only for "ours" so the floor never pays for it;
// typed as the source it was built from (dist/ need not exist when this is type-checked).
/** @type {(id: string) => unknown} */
const load = require;
const Endpoint =
  kind === "ours"
    ? /** @type {typeof import("../../src/index.js")} */ (load("pulumi-webhook-endpoints")).WebhookEndpoint
    : kind === "lean"
      ? LeanFloorEndpoint
      : FloorEndpoint;

const hooks = [];
for (let i = 0; i < count; i++) {
  hooks.push(
    new Endpoint(`hook-${i}`, {
      webhookName: `bench-${i}`,
      webhookUrl: `https://example.com/hooks/bench-${i}`,
    }),
  );
}

module.exports = { endpoints: count, firstWebhookId: hooks[0]?.webhookId };
