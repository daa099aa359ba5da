import * as pulumi from "@pulumi/pulumi";

// The producer stack's fully qualified name, e.g. organization/webhooks-producer/dev: stack config
// `producerStack`, or the environment variable PRODUCER_STACK in a pipeline.
const config = new pulumi.Config();
const producerStack = config.get("producerStack") ?? process.env.PRODUCER_STACK;
if (!producerStack) {
  throw new Error(
    "set the producer stack: `pulumi config set producerStack organization/webhooks-producer/dev`, or PRODUCER_STACK",
  );
}
const producer = new pulumi.StackReference(producerStack);

// requireOutput keeps the producer's secret a secret here: stack output shows [secret].
const signSecret = producer.requireOutput("signSecret") as pulumi.Output<string>;

// What a consumer does with it: hand it to the service that verifies deliveries. Here it is
// only re-exported (still secret) together with facts that reveal nothing of it.
export const receivedSignSecret = signSecret;
export const producerWebhookId = producer.requireOutput("webhookId");
export const secretArrivedAsSecret = pulumi
  .output(producer.getOutputDetails("signSecret"))
  .apply((details) => details.secretValue !== undefined && details.value === undefined);
