// @ts-check
"use strict";
// The benchmark program (bench/run.mjs copies it into .e2e/bench/base/projects/<kind>/).
//   bench:count  number of endpoints
//   bench:kind   "ours"  -> WebhookEndpoint from the packed package
//                "floor" -> a no-op dynamic resource with the same inputs, the same outputs and
//                           the same additionalSecretOutputs: what the engine costs by itself,
//                           declared as pulumi.dynamic.Resource (Pulumi serializes the provider);
//                "lean"  -> the same no-op provider registered the way WebhookEndpoint registers
//                           itself: its methods' text in __provider, written out here, no serializer;
//                "shape" -> the lean floor with the state's shape of "ours" (bench:shape, JSON, which
//                           bench/run.mjs reads off a stack of ours): a provider text as long as ours,
//                           and the outputs ours stores that the lean floor does not, the engine's own
//                           cost of what ours stores, without any of ours' code.
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

/**
 * The shape kind's text: the lean floor's provider, whose create adds the outputs of ours that the lean
 * floor has not (BENCH_SHAPE_OUTPUTS, JSON, which bench/engine.mjs gives the commands of a shape stack,
 * naming this stack where ours' named its own), padded with a comment to the length of ours' text. The pad
 * is ours' own text, so that it compresses as ours does (the engine deflates what it logs).
 * @param {{ textBytes: number, pad: string }} shape
 */
function shapeText(shape) {
  const base = LEAN_TEXT.trim()
    .replace(/^exports\.handler = /, "")
    .replace(/;$/, "");
  const provider = `exports.handler = () => { const base = (${base})(); return { ...base, create: async (inputs) => { const made = await base.create(inputs); return { ...made, outs: { ...made.outs, ...JSON.parse(process.env.BENCH_SHAPE_OUTPUTS ?? "{}") } }; } }; };\n`;
  const room = shape.textBytes - Buffer.byteLength(provider) - 4;
  return `/*${shape.pad.replace(/\*\//g, "").slice(0, Math.max(0, room))}*/${provider}`;
}

/** The shape kind's text, made once: the same for every resource, as ours' is. */
const SHAPE_TEXT =
  kind === "shape"
    ? shapeText(/** @type {{ textBytes: number, pad: string }} */ (config.requireObject("shape")))
    : undefined;

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
      { ...registration.props, __provider: SHAPE_TEXT ?? LEAN_TEXT },
      registration.opts,
    );
    // Declares the output's type for tsc only, as in FloorEndpoint.
    /** @type {import("@pulumi/pulumi").Output<number>} */
    // eslint-disable-next-line @typescript-eslint/no-unused-expressions -- a declaration without an assignment
    this.webhookId;
  }
}

if (kind !== "ours" && kind !== "floor" && kind !== "lean" && kind !== "shape")
  throw new Error(`bench:kind must be "ours", "floor", "lean" or "shape", got "${kind}"`);
// The installed package (from the tarball), loaded only for "ours" so the floor never pays for it;
// typed as the source it was built from (dist/ need not exist when this is type-checked).
/** @type {(id: string) => unknown} */
const load = require;
const Endpoint =
  kind === "ours"
    ? /** @type {typeof import("../../src/index.js")} */ (load("pulumi-webhook-endpoints")).WebhookEndpoint
    : kind === "lean" || kind === "shape"
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
