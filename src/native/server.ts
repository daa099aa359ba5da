import { AsyncLocalStorage } from "node:async_hooks";
import type * as grpcJs from "@grpc/grpc-js";
import type { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb";
import type { LogSeverity } from "@pulumi/pulumi/proto/engine_pb";
import type { IResourceProviderServer } from "@pulumi/pulumi/proto/provider_grpc_pb";
import type * as pb from "@pulumi/pulumi/proto/provider_pb";
import type { Empty } from "google-protobuf/google/protobuf/empty_pb";
import type { JavaScriptValue, Struct } from "google-protobuf/google/protobuf/struct_pb";
import { EndpointCreatedButFailedError } from "../core/errors";
import type { WebhookEndpointInputs } from "../core/inputs";
import { ALWAYS_SECRET_OUTPUTS, COMPUTED_OUTPUTS, PRINCIPAL_OUTPUTS, TYPE_TOKENS } from "../core/resource";
import { UNKNOWN, resourceReference, urnName } from "../core/wire";
import { ProviderCore, driftNotice } from "../core/provider-core";
import { retiredSettingsInUse } from "../core/settings";
import { stackOfUrn, type WebhookEndpointOutputs } from "../core/state";
import { NO_TAINT, joinTaints, scrubbed, showsTainted, type Taint } from "../core/taint";
import { MAX_MESSAGE_CHARS, serviceOf, showable } from "../text";
import { checkConfig, nativeConfig } from "./config";
import {
  anypb,
  emptypb,
  enginePb,
  engineRpc,
  grpc,
  pluginPb,
  providerPb,
  providerRpc,
  statusPb,
  structpb,
} from "./grpc";
import { holdsSecret, secret, secretsIn, unwrapSecrets } from "./properties";
import schema from "./schema.json";
import { packageVersion } from "./version";

/**
 * The native face: a `pulumirpc.ResourceProvider` gRPC server for Pulumi package `webhooks`,
 * resource `webhooks:index:WebhookEndpoint`, over the same provider core as the dynamic resource.
 * It is our own small server rather than `@pulumi/pulumi/provider`'s, because that one ignores
 * Configure's arguments (so explicit provider instances could not be configured) and fails on
 * `pulumi import` (Read without properties).
 */
export const PACKAGE_NAME = "webhooks";
export const RESOURCE_TYPE = TYPE_TOKENS.native;

/** The methods the plugin implements; the others answer UNIMPLEMENTED. */
type Handlers = Pick<
  IResourceProviderServer,
  | "handshake"
  | "getPluginInfo"
  | "getSchema"
  | "checkConfig"
  | "diffConfig"
  | "configure"
  | "check"
  | "diff"
  | "create"
  | "read"
  | "update"
  | "delete"
  | "cancel"
  | "attach"
>;

/** Outputs secret whatever the program marked: the signing secret. */
const ALWAYS_SECRET = new Set<string>(ALWAYS_SECRET_OUTPUTS);

const DIFF_NONE: pb.DiffResponse.DiffChanges = 1;
const DIFF_SOME: pb.DiffResponse.DiffChanges = 2;
const LOG_INFO: LogSeverity = 1;
const LOG_WARNING: LogSeverity = 2;

/** The schema served by GetSchema: `schema.json` beside this file, with the package's version. */
export function schemaText(): string {
  return JSON.stringify({ ...schema, version: packageVersion() });
}

export class WebhooksProviderServer {
  readonly #core: ProviderCore;
  #engine: EngineClient | undefined;
  #engineAddress: string | undefined;
  #warned = false;
  /** What the provider's configuration holds secret: the token always, any setting the program marked. */
  #configTaint: Taint = NO_TAINT;

  constructor(engineAddress: string | undefined, core?: ProviderCore) {
    this.#engineAddress = engineAddress;
    this.#core =
      core ??
      new ProviderCore({
        face: "native",
        notify: (message) => this.#log(LOG_INFO, message),
        // A warning names its endpoint, and is logged under no resource: reads run concurrently,
        // so the URN of the operation in progress may be another's.
        warn: (message) => this.#log(LOG_WARNING, message, ""),
      });
  }

  /** The handlers, by gRPC method name; methods left out answer UNIMPLEMENTED. */
  handlers(): Handlers {
    return {
      handshake: unary((request) => this.#handshake(request)),
      getPluginInfo: unary(() => {
        const info = new pluginPb.PluginInfo();
        info.setVersion(packageVersion());
        return info;
      }),
      getSchema: unary(() => {
        const response = new providerPb.GetSchemaResponse();
        response.setSchema(schemaText());
        return response;
      }),
      checkConfig: unary((request) => this.#checkConfig(request)),
      diffConfig: unary((request) => this.#diffConfig(request)),
      configure: unary((request) => this.#configure(request)),
      check: unary((request) => this.#check(request)),
      diff: unary((request) => this.#inCall(request, () => this.#diff(request))),
      create: unary((request) => this.#inCall(request, () => this.#create(request))),
      read: unary((request) => this.#inCall(request, () => this.#read(request))),
      update: unary((request) => this.#update(request)),
      delete: unary((request) => this.#inCall(request, () => this.#delete(request))),
      cancel: unary(() => new emptypb.Empty()),
      attach: unary((request) => {
        this.#engineAddress = request.getAddress();
        return new emptypb.Empty();
      }),
    };
  }

  async close(): Promise<void> {
    this.#engine?.close();
    await this.#core.close();
  }

  #handshake(request: pb.ProviderHandshakeRequest): pb.ProviderHandshakeResponse {
    const address = request.getEngineAddress();
    if (address !== "") this.#engineAddress = address;
    const response = new providerPb.ProviderHandshakeResponse();
    response.setAcceptSecrets(true);
    response.setAcceptResources(true);
    response.setAcceptOutputs(false);
    return response;
  }

  #checkConfig(request: pb.CheckRequest): pb.CheckResponse {
    const raw = wrapped(request.getNews());
    // The token is secret whether or not it was set with --secret (the schema says so): the
    // engine stores the checked inputs as the provider resource's inputs, in state.
    if (typeof raw.accessToken === "string" && raw.accessToken !== UNKNOWN)
      raw.accessToken = secret(raw.accessToken);
    const taint = configTaint(raw);
    const response = new providerPb.CheckResponse();
    response.setInputs(struct(raw));
    response.setFailuresList(
      checkConfig(plain(request.getNews())).map((failure) =>
        checkFailure({ property: failure.property, reason: scrubbed(failure.reason, taint.values) }),
      ),
    );
    return response;
  }

  #diffConfig(request: pb.DiffRequest): pb.DiffResponse {
    const olds = plain(request.getOlds());
    const news = plain(request.getNews());
    const changed = [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter(
      (key) => JSON.stringify(olds[key]) !== JSON.stringify(news[key]),
    );
    const response = new providerPb.DiffResponse();
    // New settings reach the resources through the provider; none of them replaces an endpoint.
    response.setChanges(changed.length > 0 ? DIFF_SOME : DIFF_NONE);
    response.setDiffsList(changed);
    response.setReplacesList([]);
    return response;
  }

  #configure(request: pb.ConfigureRequest): pb.ConfigureResponse {
    const args = request.getArgs();
    const values: Record<string, unknown> = args ? args.toJavaScript() : {};
    if (!args) for (const [key, value] of request.getVariablesMap().entries()) values[key] = value;
    this.#core.configure(nativeConfig(values));
    this.#configTaint = configTaint(values);
    if (!this.#warned) {
      this.#warned = true;
      const get = (key: string): string | undefined => {
        const bare = key.split(":").pop() ?? key;
        const value = values[bare] ?? values[key] ?? values[`webhooks:config:${bare}`];
        return value === undefined ? undefined : String(unwrapSecrets(value));
      };
      for (const warning of retiredSettingsInUse(get, process.env)) this.#log(LOG_WARNING, warning);
    }
    const response = new providerPb.ConfigureResponse();
    response.setAcceptsecrets(true);
    response.setSupportspreview(false);
    response.setAcceptresources(true);
    response.setAcceptoutputs(false);
    return response;
  }

  #check(request: pb.CheckRequest): pb.CheckResponse {
    // The inputs go back as they came, secrets still marked: the engine stores what Check returns.
    const raw = wrapped(request.getNews());
    if (raw.webhookName === undefined || raw.webhookName === null)
      raw.webhookName = urnName(request.getUrn());
    const news = unwrapSecrets(raw) as Record<string, unknown>;
    const { failures } = this.#core.check(news, this.#taint(raw));
    const response = new providerPb.CheckResponse();
    response.setInputs(struct(raw));
    response.setFailuresList(failures.map(checkFailure));
    return response;
  }

  async #diff(request: pb.DiffRequest): Promise<pb.DiffResponse> {
    const rawOlds = wrapped(request.getOlds());
    const rawNews = wrapped(request.getNews());
    const olds = unwrapSecrets(rawOlds) as WebhookEndpointOutputs;
    const news = unwrapSecrets(rawNews) as Partial<WebhookEndpointInputs>;
    const outcome = await this.#core.diff(
      request.getId(),
      olds,
      news,
      this.#taint(rawOlds, rawNews),
      stackOfUrn(String(request.getUrn())),
    );
    const notice = driftNotice(outcome);
    if (notice !== undefined) this.#log(LOG_INFO, notice, request.getUrn());
    const response = new providerPb.DiffResponse();
    response.setChanges(outcome.changes ? DIFF_SOME : DIFF_NONE);
    response.setReplacesList(outcome.replaces);
    response.setDiffsList([...outcome.replaces, ...outcome.updates]);
    response.setDeletebeforereplace(false);
    return response;
  }

  async #create(request: pb.CreateRequest): Promise<pb.CreateResponse> {
    const raw = wrapped(request.getProperties());
    const inputs = unwrapSecrets(raw) as WebhookEndpointInputs;
    const taint = this.#taint(raw);
    if (request.getPreview()) {
      // A preview never calls the service: the outputs are not known until `up`.
      const response = new providerPb.CreateResponse();
      response.setId("");
      response.setProperties(
        struct({ ...raw, ...Object.fromEntries(COMPUTED_OUTPUTS.map((key) => [key, UNKNOWN])) }),
      );
      return response;
    }
    try {
      const urn = String(request.getUrn());
      const { id, state } = await this.#core.create(inputs, taint, stackOfUrn(urn), urn);
      const response = new providerPb.CreateResponse();
      response.setId(id);
      response.setProperties(outputs(state, taint, this.#core));
      return response;
    } catch (error) {
      if (error instanceof EndpointCreatedButFailedError)
        throw new InitFailed(
          error,
          outputs(error.properties as unknown as WebhookEndpointOutputs, taint, this.#core),
        );
      throw error;
    }
  }

  async #read(request: pb.ReadRequest): Promise<pb.ReadResponse> {
    const id = request.getId();
    const rawProperties = wrapped(request.getProperties());
    const rawInputs = wrapped(request.getInputs());
    const properties = unwrapSecrets(rawProperties) as Record<string, unknown>;
    const taint = this.#taint(rawProperties, rawInputs);
    // `pulumi import` sends the id alone: nothing but it is known.
    const old =
      Object.keys(properties).length > 0 ? (properties as unknown as WebhookEndpointOutputs) : undefined;
    const found = await this.#core.read(id, old, taint, stackOfUrn(String(request.getUrn())));
    const response = new providerPb.ReadResponse();
    if (found === undefined) {
      if (old === undefined) {
        throw new Error(
          `no webhook endpoint with webhook_id ${/^\d{1,20}$/.test(id) ? id : JSON.stringify(id.slice(0, 40))} exists on the service: check the id (\`webhooks list\` shows them) and run \`pulumi import\` again`,
        );
      }
      return response;
    }
    response.setId(found.id);
    response.setProperties(outputs(found.state, taint, this.#core));
    const inputs: Record<string, unknown> = {
      webhookName: found.inputs.webhookName,
      webhookUrl: found.inputs.webhookUrl,
    };
    if (found.inputs.adoptWebhookId !== undefined) inputs.adoptWebhookId = found.inputs.adoptWebhookId;
    response.setInputs(struct(tainted(inputs, taint)));
    return response;
  }

  #update(request: pb.UpdateRequest): pb.UpdateResponse {
    const rawOlds = wrapped(request.getOlds());
    const rawNews = wrapped(request.getNews());
    const olds = unwrapSecrets(rawOlds) as WebhookEndpointOutputs;
    const news = unwrapSecrets(rawNews) as Partial<WebhookEndpointInputs>;
    const response = new providerPb.UpdateResponse();
    response.setProperties(outputs(this.#core.update(olds, news), this.#taint(rawOlds, rawNews), this.#core));
    return response;
  }

  #delete(request: pb.DeleteRequest): Empty {
    const raw = wrapped(request.getProperties());
    this.#core.delete(
      request.getId(),
      unwrapSecrets(raw) as Partial<WebhookEndpointOutputs>,
      this.#taint(raw),
    );
    return new emptypb.Empty();
  }

  /** The taint of one call: what its properties hold secret, and what the configuration does. */
  #taint(...properties: Record<string, unknown>[]): Taint {
    return joinTaints(this.#configTaint, ...properties.map(secretsIn));
  }

  /**
   * The resource of each call in flight, so that a notice the core makes while a call runs (it
   * knows no URN) lands under that call's resource: with two creates in flight, each keeps its own
   * across its awaits.
   */
  readonly #call = new AsyncLocalStorage<string>();

  #inCall<T>(request: { getUrn(): string }, run: () => T): T {
    return this.#call.run(request.getUrn(), run);
  }

  #log(severity: number, message: string, urn = this.#call.getStore()): void {
    const text = showable(message, MAX_MESSAGE_CHARS);
    if (this.#engineAddress === undefined) {
      process.stderr.write(`${text}\n`);
      return;
    }
    this.#engine ??= new engineRpc.EngineClient(this.#engineAddress, grpc.credentials.createInsecure());
    const request = new enginePb.LogRequest();
    request.setSeverity(severity);
    request.setMessage(text);
    if (urn !== undefined && urn !== "") request.setUrn(urn);
    this.#engine.log(request, (error) => {
      if (error) process.stderr.write(`${text}\n`);
    });
  }
}

/** Properties from a request, secrets unwrapped (the engine keeps them secret on its side). */
function plain(properties: Struct | undefined): Record<string, unknown> {
  return unwrapSecrets(wrapped(properties)) as Record<string, unknown>;
}

/** Properties from a request as the engine sent them, secrets still wrapped. */
function wrapped(properties: Struct | undefined): Record<string, unknown> {
  return properties ? properties.toJavaScript() : {};
}

/**
 * Properties for a response: JSON values and secret wrappers (themselves JSON), never undefined,
 * on which Struct.fromJavaScript would throw.
 */
function struct(properties: Record<string, unknown>): Struct {
  return structpb.Struct.fromJavaScript(properties as Record<string, JavaScriptValue>);
}

/**
 * The configuration's taint: the token is secret always (the schema says so), and so is every
 * setting the program marked secret.
 */
function configTaint(values: Record<string, unknown>): Taint {
  const marked = secretsIn(values);
  const token = unwrapSecrets(values.accessToken ?? values["webhooks:config:accessToken"]);
  // A base URL marked secret is secret also as the service a provenance records (trailing slash
  // dropped, host lower-cased); the core redacts its host forms from messages.
  const baseUrl = values.baseUrl ?? values["webhooks:config:baseUrl"];
  const plainBaseUrl = unwrapSecrets(baseUrl);
  const baseUrlForms =
    holdsSecret(baseUrl) && typeof plainBaseUrl === "string" && plainBaseUrl !== UNKNOWN
      ? [serviceOf(plainBaseUrl)]
      : [];
  const tokens = typeof token === "string" && token !== "" && token !== UNKNOWN ? [token] : [];
  return { names: marked.names, values: [...new Set([...marked.values, ...baseUrlForms, ...tokens])] };
}

/** A principal's id (creatorId, operatorId) equal to a value the program holds secret (a secret principalId). */
function namesSecretPrincipal(key: string, value: unknown, taint: Taint): boolean {
  return (
    (PRINCIPAL_OUTPUTS as readonly string[]).includes(key) &&
    typeof value === "number" &&
    taint.values.includes(String(value))
  );
}

/**
 * Properties made secret where the taint reaches them: a property the program marked secret (by
 * name, as the engine itself carries secrets from inputs to outputs), one that shows a secret value
 * (the service's form of a secret URL, the remembered declared address, the service's base URL when
 * it is secret), and the signing secret always.
 */
function tainted(
  properties: Record<string, unknown>,
  taint: Taint,
  core?: Pick<ProviderCore, "withoutRemembered">,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(properties)) {
    const secretNow =
      value !== UNKNOWN &&
      value !== undefined &&
      !holdsSecret(value) &&
      (ALWAYS_SECRET.has(key) ||
        taint.names.includes(key) ||
        showsTainted(value, taint.values) ||
        namesSecretPrincipal(key, value, taint) ||
        // A secret another resource showed the process, echoed here (another's secret name in
        // this endpoint's operator name).
        (core !== undefined && typeof value === "string" && core.withoutRemembered(value) !== value));
    out[key] = secretNow ? secret(value) : value;
  }
  return out;
}

/**
 * Outputs for the engine: the state without the connection, tainted (signSecret always secret),
 * and `stackRoot` as a resource reference, never secret (a secret's ciphertext is not rewritten by
 * `pulumi stack rename`; it names only the stack, which every URN of the state names in plaintext).
 */
function outputs(state: WebhookEndpointOutputs, taint: Taint, core: ProviderCore): Struct {
  const { connection: _connection, stackRoot, ...out } = state;
  return struct({
    ...tainted(out, taint, core),
    ...(stackRoot === undefined ? {} : { stackRoot: resourceReference(stackRoot) }),
  });
}

function checkFailure(failure: { property: string; reason: string }): pb.CheckFailure {
  const message = new providerPb.CheckFailure();
  message.setProperty(failure.property);
  message.setReason(failure.reason);
  return message;
}

/** The endpoint exists but the operation failed: the engine records it in state with these outputs. */
class InitFailed extends Error {
  constructor(
    readonly failure: EndpointCreatedButFailedError,
    readonly properties: Struct,
  ) {
    super(failure.message);
  }
}

/** A unary gRPC method answered by `handler`; what it throws goes back as the call's error. */
function unary<Request, Response>(
  handler: (request: Request) => Response | Promise<Response>,
): grpcJs.handleUnaryCall<Request, Response> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => handler(call.request))
      .then(
        (response) => callback(null, response),
        (error: unknown) => callback(grpcError(error)),
      );
  };
}

function grpcError(error: unknown): Partial<grpcJs.StatusObject> {
  const message = showable(error instanceof Error ? error.message : String(error), MAX_MESSAGE_CHARS);
  if (!(error instanceof InitFailed)) return { code: grpc.status.UNKNOWN, details: message };
  const detail = new providerPb.ErrorResourceInitFailed();
  detail.setId(error.failure.id);
  detail.setProperties(error.properties);
  detail.setReasonsList(error.failure.reasons);
  const any = new anypb.Any();
  any.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const status = new statusPb.Status();
  status.setCode(grpc.status.UNKNOWN);
  status.setMessage(message);
  status.addDetails(any);
  const metadata = new grpc.Metadata();
  metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  return { code: grpc.status.UNKNOWN, details: message, metadata };
}

/** Starts the server on a free loopback port; resolves to the port. */
export async function serve(
  engineAddress: string | undefined,
): Promise<{ port: number; close(): Promise<void> }> {
  const provider = new WebhooksProviderServer(engineAddress);
  const server = new grpc.Server({ "grpc.max_receive_message_length": 1024 * 1024 * 400 });
  server.addService(providerRpc.ResourceProviderService, provider.handlers());
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
  return {
    port,
    close: async () => {
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      await provider.close();
    },
  };
}
