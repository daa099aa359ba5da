// The user programs that test/types/package.test.ts type-checks against the packed package. They
// are text, not files of this repository's TypeScript program: here the package's name resolves to
// nothing (or to this checkout), while in the throwaway consumer project it resolves to the
// installed tarball, exactly as in a user's project.

/**
 * A strict CommonJS program that touches every entry point's main exports: the dynamic resource
 * with every input and every output, the client and its errors, the emulator with options, the
 * dynamic provider, and the native SDK's resource and provider.
 */
export const CONSUMER_PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import {
  WebhookAbortError,
  WebhookApiError,
  WebhookAuthError,
  WebhookConfigError,
  WebhookConnectionError,
  WebhookCreateUncertainError,
  WebhookEndpoint,
  WebhookEndpointExistsError,
  WebhookError,
  WebhookInvalidResponseError,
  WebhookPagingError,
  WebhookRateLimitError,
  WebhookRequestRefusedError,
  WebhookServerError,
  WebhookTimeoutError,
  WebhooksClient,
  type CreateResult,
  type ListingEnd,
  type ListPage,
  type WebhookConnectionArgs,
  type WebhookEndpointArgs,
  type WebhookEndpointOutputs,
  type WebhookEndpointRecord,
  type WebhookApiErrorCode,
  type WebhookErrorCode,
  type WebhooksClientOptions,
} from "pulumi-webhook-endpoints";
import {
  DEFAULT_OPTIONS,
  EMULATOR_PROFILES,
  EmulatorConfigError,
  FAULT_KINDS,
  startEmulator,
  type Emulator,
  type EmulatorOptions,
  type FaultKind,
  type ResolvedOptions,
  type WebhookRecord,
} from "pulumi-webhook-endpoints/emulator";
import { createDynamicProvider, provider, type DynamicWebhookProvider } from "pulumi-webhook-endpoints/provider";
import * as native from "pulumi-webhook-endpoints/native";

// ---- the dynamic resource: every input, every output ----
const connection: WebhookConnectionArgs = {
  baseUrl: "https://api.example.com",
  accessToken: pulumi.secret("token"),
  allowInsecureHttp: false,
};
const args: WebhookEndpointArgs = {
  webhookName: "orders",
  webhookUrl: pulumi.output("https://example.com/hooks/orders"),
  adoptWebhookId: 1234,
  connection,
};
const hook = new WebhookEndpoint("orders", args, { protect: false, additionalSecretOutputs: ["webhookUrl"] });
const minimal = new WebhookEndpoint("minimal", { webhookUrl: "https://example.com/hooks/minimal" });
export const webhookId: pulumi.Output<number> = hook.webhookId;
export const webhookName: pulumi.Output<string> = hook.webhookName;
export const webhookUrl: pulumi.Output<string> = hook.webhookUrl;
export const signSecret: pulumi.Output<string> = hook.signSecret;
export const creatorId: pulumi.Output<number> = hook.creatorId;
export const creatorName: pulumi.Output<string> = hook.creatorName;
export const createTime: pulumi.Output<number> = hook.createTime;
export const operatorId: pulumi.Output<number> = hook.operatorId;
export const operatorName: pulumi.Output<string> = hook.operatorName;
export const operateTime: pulumi.Output<number> = hook.operateTime;
export const id: pulumi.Output<string> = minimal.id;

// ---- the native SDK ----
const explicitProvider = new native.Provider("webhooks", {
  baseUrl: "https://api.example.com",
  accessToken: pulumi.secret("token"),
  timeoutMs: 5000,
  maxRetries: 2,
});
const nativeHook = new native.WebhookEndpoint(
  "native",
  { webhookName: "native", webhookUrl: "https://example.com/hooks/native", adoptWebhookId: 7 },
  { provider: explicitProvider },
);
export const nativeSecret: pulumi.Output<string> = nativeHook.signSecret;
export const nativeId: pulumi.Output<number> = nativeHook.webhookId;
export const nativeBaseUrl: string | undefined = native.config.baseUrl;

// ---- the dynamic provider (what the serialized shim reaches) ----
const dynamicProvider: DynamicWebhookProvider = createDynamicProvider();
export const providerMethods: string[] = [typeof provider.create, typeof dynamicProvider.diff];
export function outputsName(outputs: WebhookEndpointOutputs): string {
  return outputs.webhookName;
}

// ---- the client and the emulator ----
function describe(error: unknown): string {
  if (error instanceof WebhookCreateUncertainError) return error.candidateIds.join(",");
  if (error instanceof WebhookEndpointExistsError) return error.existingIds.join(",");
  if (error instanceof WebhookRateLimitError) return String(error.retryAfterMs);
  if (error instanceof WebhookInvalidResponseError) return error.field ?? "";
  if (error instanceof WebhookTimeoutError) return error.code;
  if (error instanceof WebhookConnectionError) return String(error.requestSent);
  if (
    error instanceof WebhookAuthError ||
    error instanceof WebhookServerError ||
    error instanceof WebhookRequestRefusedError ||
    error instanceof WebhookAbortError ||
    error instanceof WebhookPagingError ||
    error instanceof WebhookConfigError
  ) {
    return error.name;
  }
  if (error instanceof WebhookApiError) {
    const code: WebhookApiErrorCode = error.code;
    return [code, error.serviceCode, error.msg, error.traceId, error.status, error.operation].join(" ");
  }
  // Every error of the client, the configuration error included, under one base.
  if (error instanceof WebhookError) {
    const code: WebhookErrorCode = error.code;
    return code;
  }
  if (error instanceof EmulatorConfigError) return error.message;
  return String(error);
}

// A misconfiguration is not an API error: the types say so as well as instanceof.
type ConfigErrorIsNotAnApiError = WebhookConfigError extends WebhookApiError ? never : true;
const configErrorIsNotAnApiError: ConfigErrorIsNotAnApiError = true;
type ApiErrorCodeIsNeverConfig = "WEBHOOK_CONFIG_INVALID" extends WebhookApiErrorCode ? never : true;
const apiErrorCodeIsNeverConfig: ApiErrorCodeIsNeverConfig = true;
export const errorFamily = [configErrorIsNotAnApiError, apiErrorCodeIsNeverConfig];

export async function exercise(): Promise<string[]> {
  const options: EmulatorOptions = {
    port: 0,
    host: "127.0.0.1",
    accessToken: "dev-token",
    profile: "partial-filters",
    principals: [{ token: "other", creator: { id: 2, name: "other" } }],
    paging: "has-more",
    rewrite: { name: "trim", url: "href" },
    faults: { list: { rate: 0.1, kinds: { "rate-limit": 1, latency: 2 }, slowMs: 10 }, create: undefined },
    now: () => 0,
  };
  const emulator: Emulator = await startEmulator(options);
  const kinds: readonly FaultKind[] = FAULT_KINDS;
  const defaults: Readonly<Omit<ResolvedOptions, "now" | "adminToken">> = DEFAULT_OPTIONS;
  const seen: string[] = [...kinds, ...Object.keys(EMULATOR_PROFILES), String(defaults.maxPageSize), emulator.options().paging];
  emulator.injectNext("create", "drop-after-commit", 1, { after: 1 });
  const clientOptions: WebhooksClientOptions = {
    baseUrl: emulator.url,
    accessToken: "dev-token",
    timeoutMs: 5000,
    maxRetries: 1,
    pageSize: 50,
    ascending: "true",
    tokenSource: "the test",
  };
  const client = new WebhooksClient(clientOptions);
  try {
    const created: CreateResult = await client.create({ webhookName: "a", webhookUrl: "https://example.com/a" }, { allowDuplicate: false });
    const record: WebhookEndpointRecord = created.record;
    const page: ListPage = await client.list({ webhookName: "a", limit: 10, ascending: true, match: "exact" });
    for await (const next of client.listAll({ webhookName: "a" }, { timeoutMs: 1000 })) seen.push(String(next.records.length), next.nextCursor ?? "");
    const scanned = await client.scan({});
    const end: ListingEnd = scanned.end;
    if (!end.complete) seen.push(end.reason);
    const stored: WebhookRecord[] = emulator.records();
    seen.push(record.signSecret, page.traceId, String(page.continuation.hasMore), String(scanned.pages), String(stored.length));
  } catch (error) {
    seen.push(describe(error));
  } finally {
    await client.close();
    await emulator.close();
  }
  return seen;
}
`;

/** The same entry points imported from an ES module (node16/nodenext from ESM). */
export const ESM_CONSUMER_PROGRAM = `
import { WebhookEndpoint, WebhooksClient, WebhookApiError } from "pulumi-webhook-endpoints";
import { startEmulator, EmulatorConfigError } from "pulumi-webhook-endpoints/emulator";
import { provider } from "pulumi-webhook-endpoints/provider";
import { Provider, WebhookEndpoint as NativeWebhookEndpoint } from "pulumi-webhook-endpoints/native";

const emulator = await startEmulator({ accessToken: "dev-token" });
const client = new WebhooksClient({ baseUrl: emulator.url, accessToken: "dev-token" });
try {
  await client.list({});
} catch (error) {
  if (!(error instanceof WebhookApiError) && !(error instanceof EmulatorConfigError)) throw error;
} finally {
  await client.close();
  await emulator.close();
}
const hook = new WebhookEndpoint("esm", { webhookUrl: "https://example.com/esm" });
const nativeHook = new NativeWebhookEndpoint("native", { webhookUrl: "https://example.com/native" }, { provider: new Provider("p", {}) });
export const outputs = [hook.signSecret, nativeHook.signSecret, typeof provider.read];
`;
