import * as pulumi from "@pulumi/pulumi";
import { providerShim } from "./shim";

/** Connection settings on the resource; each overrides stack config and the environment. */
export interface WebhookConnectionArgs {
  /** The API's base URL. Else stack config `webhooks:baseUrl`, else `WEBHOOKS_BASE_URL`. */
  baseUrl?: pulumi.Input<string>;
  /** The open-API token, stored as a secret. Else `webhooks:accessToken`, else `WEBHOOKS_ACCESS_TOKEN`. */
  accessToken?: pulumi.Input<string>;
  /** Allow plain http:// to a non-loopback host (the token would travel unencrypted). @default false */
  allowInsecureHttp?: pulumi.Input<boolean>;
}

export interface WebhookEndpointArgs {
  /** The endpoint's name on the service. @default the resource name */
  webhookName?: pulumi.Input<string>;
  /** The absolute http(s) URL that receives notifications. No credentials inside it. */
  webhookUrl: pulumi.Input<string>;
  /**
   * Take over the existing endpoint with this `webhook_id` instead of creating one (Pulumi cannot
   * import dynamic resources). Its name and URL must equal the declared ones.
   */
  adoptWebhookId?: pulumi.Input<number>;
  /** Per-resource connection settings; see {@link WebhookConnectionArgs}. */
  connection?: pulumi.Input<WebhookConnectionArgs>;
}

/**
 * A webhook endpoint on a service that can only list and create. Replacing one creates a new
 * endpoint and leaves the old one on the service; destroying one leaves it there too (the
 * provider says so). `signSecret` is always a secret.
 */
export class WebhookEndpoint extends pulumi.dynamic.Resource {
  declare public readonly webhookId: pulumi.Output<number>;
  declare public readonly webhookName: pulumi.Output<string>;
  declare public readonly webhookUrl: pulumi.Output<string>;
  /** The endpoint's signing secret; secret in state, in outputs and across StackReference. */
  declare public readonly signSecret: pulumi.Output<string>;
  declare public readonly creatorId: pulumi.Output<number>;
  declare public readonly creatorName: pulumi.Output<string>;
  /** Milliseconds since the Unix epoch. */
  declare public readonly createTime: pulumi.Output<number>;
  declare public readonly operatorId: pulumi.Output<number>;
  declare public readonly operatorName: pulumi.Output<string>;
  /** Milliseconds since the Unix epoch. */
  declare public readonly operateTime: pulumi.Output<number>;

  constructor(name: string, args: WebhookEndpointArgs, opts: pulumi.CustomResourceOptions = {}) {
    // A fresh object every time: the base class writes __provider into the props it is given.
    const props: pulumi.Inputs = {
      webhookName: args.webhookName ?? name,
      webhookUrl: args.webhookUrl,
      adoptWebhookId: args.adoptWebhookId,
      connection: args.connection === undefined ? undefined : pulumi.secret(args.connection),
      webhookId: undefined,
      signSecret: undefined,
      creatorId: undefined,
      creatorName: undefined,
      createTime: undefined,
      operatorId: undefined,
      operatorName: undefined,
      operateTime: undefined,
    };
    // Forced whatever the caller passed: signSecret (and the connection with its token) are
    // secret in state and outputs, always.
    const additionalSecretOutputs = [...new Set([...(opts.additionalSecretOutputs ?? []), "signSecret", "connection"])];
    super(providerShim, name, props, { ...opts, additionalSecretOutputs }, "webhooks", "WebhookEndpoint");
  }
}
