"use strict";
// A plain JavaScript (CommonJS) Pulumi program: require(), no TypeScript, no build step.
const pulumi = require("@pulumi/pulumi");
const { WebhookEndpoint } = require("pulumi-webhook-endpoints");

const config = new pulumi.Config();
const orders = new WebhookEndpoint("orders", {
  webhookName: config.require("webhookName"),
  webhookUrl: config.require("webhookUrl"),
});

exports.webhookId = orders.webhookId;
exports.signSecret = orders.signSecret;
