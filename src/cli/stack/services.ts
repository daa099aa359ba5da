import { WebhookConfigError, type WebhooksClientOptions } from "../../client";
import { resolveConnection, serviceOf, type Connection, type ProviderConfig } from "../../core/settings";
import { nativeConfig } from "../../core/provider-config";
import {
  DYNAMIC_TYPE,
  provenanceIn,
  revealed,
  secretTexts,
  type Deployment,
  type StateResource,
} from "./deployment";
import type { ListingClient } from "../commands/listing";

/**
 * Which service each endpoint of a stack talks to. A stack may hold endpoints on several services
 * (explicit providers of the native face, a dynamic resource's `connection` input): `recover` and
 * `orphans` judge each endpoint against its own service, never against the one `webhooks`
 * connects to by default. Read from the `--show-secrets` export (kept in memory, never shown): an
 * explicit provider's token, and a base URL the program marked secret, are secrets in state.
 */
export const NATIVE_PROVIDER_TYPE = "pulumi:providers:webhooks";

/** The service `webhooks` itself connects to (flags, stack config, environment). */
export interface HomeService {
  /** {@link serviceOf} its base URL. */
  service: string;
  client: ListingClient;
  /** The configuration it was resolved from: a dynamic resource without its own connection uses the same. */
  config: ProviderConfig;
  env: NodeJS.ProcessEnv;
  /** Stack config keys set with `--secret`. */
  secretConfigKeys: readonly string[];
}

/** The home service's settings: what judging where a resource's endpoint lives needs. */
export type HomeSettings = Omit<HomeService, "client">;

/** Where a resource's endpoint lives, as far as the state tells. */
export type ServiceTarget =
  | {
      known: true;
      service: string;
      /** How to reach it when it is not the home service; undefined for the home service. */
      connection?: Connection;
      /** Secret values of the provider or connection input it came from (kept secret in what recover records). */
      secretValues: string[];
      /** Whether its base URL is held secret in state (the provenance must then be secret too). */
      baseUrlSecret: boolean;
      /** The principal its configuration names (`principalId`): then it alone is the stack's principal there. */
      principalId?: number;
    }
  | { known: false; why: string };

/**
 * The service a resource's endpoint talks to, from its inputs and its provider as the (revealed)
 * state holds them: the native face's provider resource (explicit, or the default one with the
 * stack's config), or the dynamic face's `connection` input, else the home configuration.
 */
export function serviceTarget(
  resource: StateResource,
  revealedState: Deployment,
  home: HomeSettings,
): ServiceTarget {
  try {
    if (resource.type === DYNAMIC_TYPE) {
      const connectionValue = resource.inputs?.connection;
      if (connectionValue === undefined || connectionValue === null) {
        const principalId = configuredPrincipal(home.config, home.env);
        return {
          known: true,
          service: home.service,
          secretValues: [],
          baseUrlSecret: home.secretConfigKeys.includes("webhooks:baseUrl"),
          ...(principalId === undefined ? {} : { principalId }),
        };
      }
      const connection = revealed(connectionValue);
      if (typeof connection !== "object" || connection === null)
        return { known: false, why: "its connection input is a secret that could not be decrypted" };
      const resolved = resolveConnection(home.config, connection, home.env, "its connection");
      const service = serviceOf(resolved.client.baseUrl);
      return {
        known: true,
        service,
        ...(service === home.service ? {} : { connection: resolved }),
        secretValues: secretTexts(connectionValue),
        baseUrlSecret: true,
        ...(resolved.principalId === undefined ? {} : { principalId: resolved.principalId }),
      };
    }
    const provider = providerOf(resource, revealedState);
    if (provider === undefined)
      return {
        known: false,
        why: `its provider (${typeof resource.provider === "string" ? resource.provider : "none named"}) is not in the state`,
      };
    const inputs = revealed(provider.inputs ?? {}) as Record<string, unknown> | undefined;
    if (inputs === undefined || Object.values(inputs).some((value) => value === undefined))
      return { known: false, why: "its provider's settings are secrets that could not be decrypted" };
    // A default provider is configured by the stack's config, which the home configuration read too
    // (what its inputs lack, the plugin took from the same place); an explicit provider by its
    // arguments alone, then the environment.
    const own = nativeConfig(inputs);
    const config = isDefaultProvider(provider)
      ? { ...home.config, values: { ...home.config.values, ...definedValues(own.values) } }
      : own;
    const resolved = resolveConnection(config, undefined, home.env);
    const service = serviceOf(resolved.client.baseUrl);
    const baseUrlSecret = typeof provider.inputs?.baseUrl === "object" && provider.inputs.baseUrl !== null;
    return {
      known: true,
      service,
      ...(service === home.service ? {} : { connection: resolved }),
      secretValues: secretTexts(provider.inputs ?? {}),
      baseUrlSecret,
      ...(resolved.principalId === undefined ? {} : { principalId: resolved.principalId }),
    };
  } catch (error) {
    if (error instanceof WebhookConfigError)
      return { known: false, why: `its settings do not resolve to a service (${error.message})` };
    throw error;
  }
}

/** The service an endpoint resource of the state is on: its recorded provenance, else its provider or connection. */
export function heldService(
  resource: StateResource,
  revealedState: Deployment,
  home: HomeSettings,
): string | undefined {
  const revealedResource = findSame(resource, revealedState) ?? resource;
  const provenance = provenanceIn(revealedResource);
  if (provenance !== undefined) return provenance.service;
  const target = serviceTarget(revealedResource, revealedState, home);
  return target.known ? target.service : undefined;
}

function isDefaultProvider(provider: StateResource): boolean {
  return /::default(?:_[\w-]+)?$/.test(provider.urn);
}

function definedValues<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** The provider resource a resource names (`<urn>::<id>`). */
function providerOf(resource: StateResource, state: Deployment): StateResource | undefined {
  const reference = resource.provider;
  if (typeof reference !== "string") return undefined;
  const at = reference.lastIndexOf("::");
  const urn = reference.slice(0, at);
  const id = reference.slice(at + 2);
  return (state.resources ?? []).find((r) => r.urn === urn && r.id === id && r.type === NATIVE_PROVIDER_TYPE);
}

/** The same resource (URN and ID) in another export of the state. */
function findSame(resource: StateResource, state: Deployment): StateResource | undefined {
  return (state.resources ?? []).find(
    (r) => r.urn === resource.urn && r.id === resource.id && r.delete === resource.delete,
  );
}

/** Clients for the services a command visits, opened once each and closed together. */
export class ServiceClients {
  readonly #open: (options: WebhooksClientOptions) => ListingClient & { close?(): Promise<void> };
  readonly #clients = new Map<string, ListingClient & { close?(): Promise<void> }>();
  constructor(
    readonly home: HomeService,
    open: (options: WebhooksClientOptions) => ListingClient & { close?(): Promise<void> },
  ) {
    this.#open = open;
  }

  /** The client for a known target: the home client for the home service. */
  for(target: Extract<ServiceTarget, { known: true }>): ListingClient {
    if (target.connection === undefined || target.service === this.home.service) return this.home.client;
    let client = this.#clients.get(target.service);
    if (client === undefined) {
      client = this.#open(target.connection.client);
      this.#clients.set(target.service, client);
    }
    return client;
  }

  /** Every token these clients use, to keep out of everything printed. */
  secrets(targets: readonly ServiceTarget[]): string[] {
    return targets.flatMap((t) =>
      t.known && t.connection !== undefined ? [t.connection.client.accessToken] : [],
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.#clients.values()].map(async (client) => client.close?.()));
    this.#clients.clear();
  }
}

/**
 * The principal a configuration names for its own token (`principalId`), undefined when it names
 * none or does not resolve.
 */
export function configuredPrincipal(config: ProviderConfig, env: NodeJS.ProcessEnv): number | undefined {
  try {
    return resolveConnection(config, undefined, env).principalId;
  } catch (error) {
    if (error instanceof WebhookConfigError) return undefined;
    throw error;
  }
}
