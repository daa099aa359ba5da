import * as pulumi from "@pulumi/pulumi";
import { WebhookEndpoint } from "pulumi-webhook-endpoints";

// Pulumi cannot import dynamic resources, so an existing endpoint is taken over by id. Its name
// and URL must be declared exactly as they are on the service (there is no update call).
const config = new pulumi.Config();

const legacy = new WebhookEndpoint("legacy", {
  webhookName: config.require("webhookName"),
  webhookUrl: config.require("webhookUrl"),
  adoptWebhookId: config.requireNumber("adoptWebhookId"),
});

export const webhookId = legacy.webhookId;
export const signSecret = legacy.signSecret;
