// An ES module Pulumi program: the project's package.json says "type": "module", so this file is
// loaded with import(). The package is CommonJS; its named exports are imported as ESM sees them.
import * as pulumi from "@pulumi/pulumi";
import { WebhookEndpoint } from "pulumi-webhook-endpoints";

const config = new pulumi.Config();
const orders = new WebhookEndpoint("orders", {
  webhookName: config.require("webhookName"),
  webhookUrl: config.require("webhookUrl"),
});

export const webhookId = orders.webhookId;
export const signSecret = orders.signSecret;
