/**
 * pulumi-webhook-endpoints: the `WebhookEndpoint` Pulumi dynamic resource and the typed
 * `WebhooksClient` it is built on. The emulator lives at `pulumi-webhook-endpoints/emulator`.
 */
export * from "./client";
export * from "./resource";
