"use strict";
// Depends on my-wrapper and @pulumi/pulumi only: under pnpm, pulumi-webhook-endpoints is not
// resolvable from this directory, yet the provider must find it for refresh and destroy.
const pulumi = require("@pulumi/pulumi");
const { teamWebhook } = require("my-wrapper");

const config = new pulumi.Config();
const hook = teamWebhook(config.require("webhookName"), config.require("webhookUrl"));

exports.webhookId = hook.webhookId;
exports.signSecret = hook.signSecret;
