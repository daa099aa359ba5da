"use strict";
// A platform team's library: it depends on pulumi-webhook-endpoints; the programs that use it
// depend on this library (and @pulumi/pulumi), not on pulumi-webhook-endpoints themselves.
const { WebhookEndpoint } = require("pulumi-webhook-endpoints");

/**
 * The team's webhook endpoint, declared the platform's way.
 * @param {string} name the endpoint's name on the service, and the resource's
 * @param {import("@pulumi/pulumi").Input<string>} url where notifications go
 */
function teamWebhook(name, url) {
  return new WebhookEndpoint(name, { webhookName: name, webhookUrl: url });
}

module.exports = { teamWebhook };
