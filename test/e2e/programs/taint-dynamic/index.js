"use strict";
const pulumi = require("@pulumi/pulumi");
const { WebhookEndpoint } = require("pulumi-webhook-endpoints");

const config = new pulumi.Config();
/** @type {string[]} */
const secretKeys = JSON.parse(config.get("secretKeys") ?? "[]");
const value = (key) => (secretKeys.includes(key) ? config.requireSecret(key) : config.require(key));
const hook = new WebhookEndpoint("hook", {
  webhookName: value("name"),
  webhookUrl: value("url"),
  ...(config.getBoolean("useConnection")
    ? { connection: { baseUrl: value("connBaseUrl"), accessToken: config.requireSecret("connToken") } }
    : {}),
});
exports.name = hook.webhookName;
exports.url = hook.webhookUrl;
exports.id = hook.webhookId;
exports.provenance = hook.provenance;
