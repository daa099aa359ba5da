import * as pulumi from "@pulumi/pulumi";
import {
  DYNAMIC_FORCED_SECRET,
  INPUTS,
  OUTPUT_NAMES,
  PRINCIPAL_OUTPUTS,
  SECRET_CAPABLE_INPUTS,
  TYPE_TOKENS,
} from "../core/resource";
import { ALWAYS_SECRET_SETTINGS, SETTING_NAMES, configKey } from "../core/settings-table";
import type { Provenance } from "../core/state";
import { ownProviderText } from "./shim";

/**
 * Connection settings on the resource. Each setting is resolved on its own, first found wins: this
 * input, then stack config, then the environment. The whole object is stored as a secret.
 */
export interface WebhookConnectionArgs {
  /**
   * The API's base URL, e.g. `https://api.example.com` (paths `/open-api/v1/...` are appended).
   * `https://` is required unless the host is a loopback address or `allowInsecureHttp` is set.
   * @default stack config `webhooks:baseUrl`, else the environment variable `WEBHOOKS_BASE_URL`
   */
  baseUrl?: pulumi.Input<string>;
  /**
   * The open-API access token, sent only in the `Authorization` header; stored as a secret, never
   * logged, never in an error message.
   * @default stack config `webhooks:accessToken` (set it with `--secret`), else the environment
   * variable `WEBHOOKS_ACCESS_TOKEN`
   */
  accessToken?: pulumi.Input<string>;
  /**
   * Allow a plain `http://` base URL on a non-loopback host (the token would travel unencrypted).
   * @default stack config `webhooks:allowInsecureHttp`, else `WEBHOOKS_ALLOW_INSECURE_HTTP=1`, else false
   */
  allowInsecureHttp?: pulumi.Input<boolean>;
}

/** The inputs of a {@link WebhookEndpoint}. Every one is checked before any API call. */
export interface WebhookEndpointArgs {
  /**
   * The endpoint's name on the service: 1 to 128 characters, no control characters, no leading
   * or trailing white space. Changing it replaces the endpoint (there is no update call).
   * @default the resource name
   */
  webhookName?: pulumi.Input<string>;
  /**
   * The absolute `http(s)` URL that receives notifications, at most 2048 characters. Credentials
   * inside it (`https://user:pw@...`) are refused: they would sit in state and in every list
   * response. Changing it replaces the endpoint (there is no update call).
   */
  webhookUrl: pulumi.Input<string>;
  /**
   * Take over the existing endpoint with this `webhook_id` instead of creating one (Pulumi cannot
   * import dynamic resources). Its name and URL must equal the declared ones; its signing secret
   * is read from the list response.
   */
  adoptWebhookId?: pulumi.Input<number>;
  /**
   * Per-resource connection settings; each overrides stack config and the environment (see
   * {@link WebhookConnectionArgs}). Stored as a secret.
   */
  connection?: pulumi.Input<WebhookConnectionArgs>;
}

/**
 * A webhook endpoint on a service that can only list and create. Replacing one creates a new
 * endpoint and leaves the old one on the service; destroying one leaves it there too (the
 * provider says so). `signSecret` is always a secret. The Pulumi ID is `String(webhookId)`; the
 * type token is `pulumi-nodejs:dynamic/webhooks:WebhookEndpoint`.
 *
 * A dynamic resource, run by Pulumi's Node.js dynamic-provider host like any other. It registers
 * itself as `pulumi.dynamic.Resource` does (the `pulumi-nodejs:dynamic/...` type token and the
 * provider's text in `__provider`), but with a small hand-written text (see `stored-provider.js`)
 * instead of a closure serialized at run time.
 */
export class WebhookEndpoint extends pulumi.CustomResource {
  /** The endpoint's `webhook_id`, assigned by the service. The resource's ID is its decimal string. */
  declare public readonly webhookId: pulumi.Output<number>;
  /** The endpoint's name as the service stores it (`webhook_name`). */
  declare public readonly webhookName: pulumi.Output<string>;
  /** The URL that receives notifications, as the service stores it (`webhook_url`). */
  declare public readonly webhookUrl: pulumi.Output<string>;
  /**
   * The endpoint's signing secret (`sign_secret`): always a secret, in state, in outputs and
   * across `StackReference`, whatever `additionalSecretOutputs` says.
   */
  declare public readonly signSecret: pulumi.Output<string>;
  /** Id of the principal that created the endpoint (`creator_id`). */
  declare public readonly creatorId: pulumi.Output<number>;
  /** Name of the principal that created the endpoint (`creator_name`). */
  declare public readonly creatorName: pulumi.Output<string>;
  /** When the endpoint was created (`create_time`), in milliseconds since the Unix epoch. */
  declare public readonly createTime: pulumi.Output<number>;
  /** Id of the principal that last operated on the endpoint (`operator_id`). */
  declare public readonly operatorId: pulumi.Output<number>;
  /** Name of the principal that last operated on the endpoint (`operator_name`). */
  declare public readonly operatorName: pulumi.Output<string>;
  /** When the endpoint was last operated on (`operate_time`), in milliseconds since the Unix epoch. */
  declare public readonly operateTime: pulumi.Output<number>;
  /** The `adoptWebhookId` input, when one was given. */
  declare public readonly adoptWebhookId: pulumi.Output<number | undefined>;
  /**
   * How the endpoint entered this stack (`created`, or `adopted` with `adoptWebhookId`) and on which
   * service (its base URL, never the token): recorded when it happened, read by `webhooks recover`
   * and `webhooks orphans`. Secret when the base URL may be (a `connection` input, or
   * `webhooks:baseUrl` set with `--secret`).
   */
  declare public readonly provenance: pulumi.Output<Provenance>;

  /**
   * Declares a webhook endpoint. `up` creates it with exactly one create call (or adopts
   * `adoptWebhookId`); an ambiguous create is settled by listing, never retried blindly.
   *
   * @param name The unique name of the resource in the stack; also the endpoint's `webhookName`
   *   when none is given.
   * @param args The endpoint's name, URL and optional adoption id and connection settings.
   * @param opts Resource options. `signSecret` and `connection` are added to
   *   `additionalSecretOutputs` whatever is passed here.
   */
  constructor(name: string, args: WebhookEndpointArgs, opts: pulumi.CustomResourceOptions = {}) {
    // Every property registered costs the program a few promises, each with the stack trace the SDK
    // records, per resource: what the provider needs and the program does not read is registered only
    // when it holds something.
    const secretInputs = secretInputNames(args);
    const props: pulumi.Inputs = {
      webhookName: args.webhookName ?? name,
      webhookUrl: args.webhookUrl,
      adoptWebhookId: args.adoptWebhookId,
      ...(args.connection === undefined ? {} : { connection: pulumi.secret(args.connection) }),
      ...OUTPUTS_ONLY,
      // Which inputs the program marked secret: the dynamic-provider host hands the provider plain
      // values, and this is how it keeps them out of its messages.
      ...(secretInputs === undefined ? {} : { __secretInputs: secretInputs }),
      // What the dynamic-provider host runs for this resource (see stored-provider.js), with the stack
      // an endpoint it creates enters (its provenance), which the host does not tell the provider.
      __provider: ownProviderText(`${pulumi.getProject()}/${pulumi.getStack()}`),
    };
    // Forced whatever the caller passed: signSecret (and the connection with its token) are
    // secret in state and outputs, always; so are the remembered declared and created addresses
    // (they may hold a name or URL the program marked secret, and the engine only carries
    // secrecy from an input to the output of the same name), and the provenance whenever the base
    // URL it names may be secret.
    const baseUrlMayBeSecret = args.connection !== undefined || configIsSecret("webhooks:baseUrl");
    const forced = [
      ...DYNAMIC_FORCED_SECRET,
      ...(baseUrlMayBeSecret ? ["provenance"] : []),
      // The principal's id, held secret by the program, is what these outputs hold for its endpoints.
      ...(configIsSecret("webhooks:principalId") ? PRINCIPAL_OUTPUTS : []),
    ];
    const additionalSecretOutputs = [...new Set([...(opts.additionalSecretOutputs ?? []), ...forced])];
    super(TYPE_TOKENS.dynamic, name, props, {
      ...opts,
      additionalSecretOutputs,
    });
  }
}

/** The outputs that are no input: registered as unknown, for the provider to fill. */
const OUTPUTS_ONLY: pulumi.Inputs = Object.fromEntries(
  OUTPUT_NAMES.filter((name) => !(name in INPUTS)).map((name) => [name, undefined]),
);
/**
 * The stack config keys the provider reads that are not secret wherever they are set: any of them may
 * be set with `--secret`.
 */
const SECRET_CAPABLE_CONFIG = SETTING_NAMES.filter((name) => !ALWAYS_SECRET_SETTINGS.includes(name)).map(
  configKey,
);

/**
 * Which of the resource's inputs, and which `webhooks:*` config keys, the program marked secret;
 * undefined when none is (the access token is secret to the provider wherever it is set). Only an
 * Output can be secret, so with none among the inputs (the usual declaration) the list is known at once
 * and is given as a plain array: an Output costs the program an await of each of its parts when the SDK
 * serializes the inputs (measured under the SDK's mocks: 0.3-0.5 ms a resource of 8).
 */
function secretInputNames(args: WebhookEndpointArgs): pulumi.Input<string[]> | undefined {
  const config = SECRET_CAPABLE_CONFIG.filter(configIsSecret);
  const outputs = SECRET_CAPABLE_INPUTS.filter((name) => pulumi.Output.isInstance<unknown>(args[name]));
  if (outputs.length === 0) return config.length === 0 ? undefined : config;
  const marked = outputs.map(async (name) =>
    (await pulumi.isSecret(args[name] as pulumi.Output<unknown>)) ? [name] : [],
  );
  return pulumi.output(Promise.all(marked).then((names) => [...names.flat(), ...config]));
}

/**
 * Whether the stack config holds `key` as a secret. The SDK knows (`runtime.isConfigSecret`, which
 * its own `Config.get` warning uses) but does not declare it in its types; an SDK without it is
 * taken to hold every key secret, the side that never shows one.
 */
function configIsSecret(key: string): boolean {
  const runtime = pulumi.runtime as unknown as { isConfigSecret?: (key: string) => boolean };
  return typeof runtime.isConfigSecret === "function" ? runtime.isConfigSecret(key) : true;
}
