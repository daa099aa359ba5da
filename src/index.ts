/**
 * pulumi-webhook-endpoints: the `WebhookEndpoint` Pulumi dynamic resource and the typed
 * `WebhooksClient` it is built on. The emulator lives at `pulumi-webhook-endpoints/emulator`, the
 * native provider's Node.js SDK at `pulumi-webhook-endpoints/native`.
 */
export * from "./client";
export * from "./dynamic";
