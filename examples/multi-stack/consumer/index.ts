import * as pulumi from "@pulumi/pulumi";

// The producer stack's fully qualified name, e.g. organization/webhooks-producer/dev.
const config = new pulumi.Config();
const producer = new pulumi.StackReference(config.require("producerStack"));

// requireOutput keeps the producer's secret a secret here: stack output shows [secret].
const signSecret = producer.requireOutput("signSecret") as pulumi.Output<string>;

// What a consumer does with it: hand it to the service that verifies deliveries. Here it is
// only re-exported (still secret) together with facts that reveal nothing of it.
export const receivedSignSecret = signSecret;
export const producerWebhookId = producer.requireOutput("webhookId");
export const secretArrivedAsSecret = pulumi
  .output(producer.getOutputDetails("signSecret"))
  .apply((details) => details.secretValue !== undefined && details.value === undefined);
