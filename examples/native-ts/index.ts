import * as pulumi from "@pulumi/pulumi";
import * as webhooks from "pulumi-webhook-endpoints/native";

const config = new pulumi.Config();
const orders = new webhooks.WebhookEndpoint("orders", {
  webhookUrl: config.get("webhookUrl") ?? "https://example.com/hooks/orders",
});

export const ordersWebhookId = orders.webhookId;
export const ordersSignSecret = orders.signSecret;
