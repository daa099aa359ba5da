import type * as dynamic from "@pulumi/pulumi/dynamic";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { EndpointCreatedButFailedError } from "../core/errors";
import type { WebhookEndpointInputs } from "../core/inputs";
import { ProviderCore, driftNotice } from "../core/provider-core";
import { configKey, retiredSettingsInUse, stackConfig } from "../core/settings";
import { ALWAYS_SECRET_SETTINGS } from "../core/settings-table";
import { laterOutputs, type WebhookEndpointOutputs } from "../core/state";
import { resourceReference, rootStackUrn } from "../core/wire";
import { scrubbed, type Taint } from "../core/taint";

/**
 * The dynamic face: a thin adapter from Pulumi's dynamic-provider contract to the provider core.
 * State never holds this code: the stored text (stored-provider.js) requires this module from the
 * installed package at run time, so a fix here reaches resources created by older versions on
 * their next refresh or destroy. The package's `./provider` export points here.
 */
export type DynamicWebhookProvider = Required<
  dynamic.ResourceProvider<WebhookEndpointInputs, WebhookEndpointOutputs>
>;

/** Builds a dynamic provider over its own core (one per provider-host process, see `provider`). */
export function createDynamicProvider(
  core: ProviderCore = new ProviderCore({ face: "dynamic" }),
): DynamicWebhookProvider {
  let warned = false;
  let config: (key: string) => string | undefined = () => undefined;
  /**
   * The stack the program runs as (`__stack`, from the last call that carried the program's inputs:
   * the stored text's face of this provider adds it to them, see {@link forStack}; earlier releases'
   * programs registered it): the dynamic-provider
   * host tells `read` neither the resource's URN nor its inputs. One provider host serves one stack's
   * run. A value not of the form `<project>/<stack>` (a text whose stack was never written in) is none.
   */
  let stack: string | undefined;
  const stackOf = (inputs: Partial<WebhookEndpointInputs>): string | undefined => {
    if (typeof inputs.__stack === "string" && rootStackUrn(inputs.__stack) !== undefined)
      stack = inputs.__stack;
    return stack;
  };
  const taintOf = (...props: (Partial<WebhookEndpointInputs> | undefined)[]): Taint =>
    callTaint(config, props);
  return {
    configure(request: dynamic.ConfigureRequest): Promise<void> {
      // Assigned synchronously: the provider host caches this provider before configure's promise
      // settles, so concurrent first calls must already see the config.
      const get = (key: string): string | undefined => {
        try {
          return request.config.get(key);
        } catch {
          // The host hands over no config at all when Configure was never called.
          return undefined;
        }
      };
      core.configure(stackConfig(get));
      config = get;
      if (!warned) {
        warned = true;
        for (const warning of retiredSettingsInUse(get, process.env)) console.log(`warning: ${warning}`);
      }
      return Promise.resolve();
    },

    async check(_olds, news) {
      stackOf(news);
      const { failures } = core.check(news as unknown as Record<string, unknown>, taintOf(news));
      // The stack the stored text added is not stored: the text adds it to every call again.
      const { __stack: _stack, ...inputs } = news;
      return failures.length > 0 ? { inputs, failures } : { inputs };
    },

    async create(inputs) {
      try {
        const { id, state } = await core.create(inputs, taintOf(inputs), stackOf(inputs));
        return { id, outs: stored(state, taintOf(inputs), core) };
      } catch (error) {
        if (error instanceof EndpointCreatedButFailedError) {
          // The engine records these properties as the resource's outputs: keep the provider
          // reference so later operations on it can run.
          const __provider = (inputs as unknown as Record<string, unknown>).__provider;
          throw new EndpointCreatedButFailedError(error.message, error.id, {
            ...stored(error.properties as unknown as WebhookEndpointOutputs, taintOf(inputs), core),
            __provider,
          });
        }
        throw error;
      }
    },

    async read(id, props) {
      const found = await core.read(id, props, taintOf(props), stack);
      if (found === undefined) return { id: "" };
      return {
        id,
        props: stored(found.state, taintOf(props), core),
        // Inputs only where a refresh changes them (the service's name or URL changed, or an import):
        // without them the engine keeps the state's, and the host sends no copy of the provider
        // text back with each read.
        ...(props !== undefined &&
        found.inputs.webhookName === props.webhookName &&
        found.inputs.webhookUrl === props.webhookUrl
          ? {}
          : { inputs: found.inputs as WebhookEndpointOutputs }),
      };
    },

    async diff(id, olds, news) {
      const taint = taintOf(olds, news);
      const outcome = await core.diff(id, olds, news, taint, stackOf(news));
      const notice = driftNotice(outcome);
      if (notice !== undefined) console.log(scrubbed(notice, taint.values));
      return { changes: outcome.changes, replaces: outcome.replaces, deleteBeforeReplace: false };
    },

    async update(_id, olds, news) {
      stackOf(news);
      return { outs: laterKeptSecret(stored(core.update(olds, news), taintOf(olds, news), core)) };
    },

    async delete(id, props) {
      core.delete(id, props, taintOf(props));
    },
  };
}

/**
 * The taint of a call. The dynamic-provider host hands this provider plain values (it does not
 * accept secrets), so the resource class records which inputs and `webhooks:*` config keys the
 * program marked secret (`__secretInputs`); the connection input is secret always.
 */
function callTaint(
  config: (key: string) => string | undefined,
  props: readonly (Partial<WebhookEndpointInputs> | undefined)[],
): Taint {
  const names = new Set<string>();
  const values = new Set<string>();
  for (const p of props) {
    if (p === undefined) continue;
    const marked = Array.isArray(p.__secretInputs)
      ? p.__secretInputs.filter((name): name is string => typeof name === "string")
      : [];
    for (const name of marked) {
      names.add(name);
      const value = name.startsWith("webhooks:") ? config(name) : (p as Record<string, unknown>)[name];
      if (typeof value === "string" || typeof value === "number") values.add(String(value));
    }
    const connection = p.connection as Record<string, unknown> | undefined;
    if (typeof connection === "object" && connection !== null) {
      for (const value of Object.values(connection))
        if (typeof value === "string" && value !== "") values.add(value);
    }
  }
  for (const name of ALWAYS_SECRET_SETTINGS) {
    const value = config(configKey(name));
    if (value) values.add(value);
  }
  return { names: [...names], values: [...values] };
}

/**
 * An update's outputs with each output a later release wrote marked secret. The host hands this
 * provider old outputs without their secret marks, and the engine marks secret again only the
 * outputs named like an input: an output a later release wrote may have been secret, so each is
 * returned secret (a taint kept; a plain one only shows as [secret] from then on).
 */
function laterKeptSecret(outs: WebhookEndpointOutputs): WebhookEndpointOutputs {
  const later = Object.entries(laterOutputs(outs)).map(([key, value]): [string, unknown] => [
    key,
    { [specialSigKey]: specialSecretSig, value },
  ]);
  return { ...outs, ...Object.fromEntries(later) };
}

/**
 * The service's text outputs this face cannot make secret when a secret shows in them (the engine
 * takes a dynamic resource's secret outputs when the program registers it): a value the program holds
 * secret shows in them redacted, as `webhooks list` shows it (a service may echo a secret name in the
 * creator's or operator's name; a secret principalId is the creator's id, and may be in its name).
 */
const SERVICE_TEXT_OUTPUTS = ["creatorName", "operatorName"] as const;

/**
 * Outputs as the engine is to store them: `stackRoot` as a resource reference (the host passes
 * outputs through as they are), which `pulumi stack rename` rewrites (see state.ts), and the
 * service's text outputs without the program's secrets.
 */
function stored(state: WebhookEndpointOutputs, taint: Taint, core: ProviderCore): WebhookEndpointOutputs {
  let outs = state;
  for (const key of SERVICE_TEXT_OUTPUTS) {
    const text = outs[key];
    if (typeof text !== "string") continue;
    // This call's secrets, and those other resources showed the process (another resource's secret
    // name or signing secret echoed in this endpoint's operator name).
    const shown = core.withoutRemembered(text, taint.values);
    if (shown !== text) outs = { ...outs, [key]: shown };
  }
  if (outs.stackRoot === undefined) return outs;
  return { ...outs, stackRoot: resourceReference(outs.stackRoot) as unknown as string };
}

/**
 * Which argument of each method holds the program's inputs (with the stored text in `__provider`):
 * `check(olds, news)`, `diff(id, olds, news)`, `create(inputs)`, `update(id, olds, news)`. The other
 * arguments, and `read`'s and `delete`'s, hold what the state recorded, whose text may be another
 * stack's (a resource `pulumi state move` brought in keeps the text it was created with).
 */
const PROGRAM_INPUTS = { check: 1, diff: 2, create: 0, update: 2 } as const;

/**
 * `base` for the program of `stack` (`<project>/<stack>`): the stack is handed to it as `__stack` in
 * the program's inputs of each call that carries them (copies: the host's objects are not changed).
 */
export function stackFace(base: DynamicWebhookProvider, stack: string): DynamicWebhookProvider {
  const face = { ...base };
  for (const [method, at] of Object.entries(PROGRAM_INPUTS) as [keyof typeof PROGRAM_INPUTS, number][]) {
    const call = base[method] as (...args: unknown[]) => unknown;
    (face as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const inputs = args[at];
      if (typeof inputs === "object" && inputs !== null) args[at] = { ...inputs, __stack: stack };
      return call(...args);
    };
  }
  return face;
}

/** The dynamic provider with the face the stored text asks for, per stack. */
export interface StoredTextProvider extends DynamicWebhookProvider {
  /**
   * This provider for the program of `stack`, as the stored text (stored-provider.js) calls it: the
   * stack, which the text embeds and the dynamic-provider host does not tell a provider, is handed in
   * the program's inputs. One face per stack, kept for the process.
   */
  forStack(stack: string): DynamicWebhookProvider;
}

function withStackFaces(base: DynamicWebhookProvider): StoredTextProvider {
  const faces = new Map<string, DynamicWebhookProvider>();
  return {
    ...base,
    forStack(stack: string): DynamicWebhookProvider {
      let face = faces.get(stack);
      if (face === undefined) faces.set(stack, (face = stackFace(base, stack)));
      return face;
    },
  };
}

/**
 * The provider every stored text reaches: one per provider-host process. The texts of 0.2.0 call its
 * methods directly; today's call them through `forStack`.
 */
export const provider: StoredTextProvider = withStackFaces(createDynamicProvider());

export { EndpointCreatedButFailedError };
export type { WebhookEndpointOutputs };
