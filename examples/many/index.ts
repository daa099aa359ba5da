import * as pulumi from "@pulumi/pulumi";
import { WebhookEndpoint } from "pulumi-webhook-endpoints";

// endpoints: a map of endpoint name to URL, e.g.
//   pulumi config set --path 'endpoints.orders' https://example.com/hooks/orders
const config = new pulumi.Config();
const endpoints = config.requireObject<Record<string, string>>("endpoints");

const hooks = Object.entries(endpoints).map(
  ([name, url]) => new WebhookEndpoint(name, { webhookName: name, webhookUrl: url }),
);

export const webhookIds = Object.fromEntries(
  hooks.map((hook, i) => [Object.keys(endpoints)[i], hook.webhookId]),
);
// A map of secrets is itself secret.
export const signSecrets = pulumi.secret(
  pulumi
    .all(hooks.map((hook) => hook.signSecret))
    .apply((secrets) => Object.fromEntries(secrets.map((s, i) => [Object.keys(endpoints)[i], s]))),
);
