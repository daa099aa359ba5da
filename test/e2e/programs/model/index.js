"use strict";
const pulumi = require("@pulumi/pulumi");
const { WebhookEndpoint } = require("pulumi-webhook-endpoints");

const config = new pulumi.Config();
/** @type {{ resource: string, name: string, url: string, adopt?: number }[]} */
const endpoints = JSON.parse(config.get("endpoints") ?? "[]");
const ids = {};
for (const endpoint of endpoints) {
  const hook = new WebhookEndpoint(endpoint.resource, {
    webhookName: endpoint.name,
    webhookUrl: endpoint.url,
    ...(endpoint.adopt === undefined ? {} : { adoptWebhookId: endpoint.adopt }),
  });
  ids[endpoint.resource] = hook.webhookId;
}
exports.ids = ids;
