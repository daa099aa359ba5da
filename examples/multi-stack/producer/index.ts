import * as pulumi from "@pulumi/pulumi";
import { WebhookEndpoint } from "pulumi-webhook-endpoints";

// Connection: stack config webhooks:baseUrl and webhooks:accessToken (set with --secret), or
// the environment variables WEBHOOKS_BASE_URL and WEBHOOKS_ACCESS_TOKEN.
const config = new pulumi.Config();

const orders = new WebhookEndpoint("orders", {
  webhookName: config.get("webhookName") ?? "orders",
  webhookUrl: config.get("webhookUrl") ?? "https://example.com/hooks/orders",
});

export const webhookId = orders.webhookId;
export const webhookName = orders.webhookName;
export const webhookUrl = orders.webhookUrl;
export const createTime = orders.createTime;
// Read by other stacks through StackReference; it stays secret there.
export const signSecret = orders.signSecret;
