// Local emulator of the webhooks open API: the real service has only list and create, documents
// little else, and cannot be reset, so everything the document leaves open is an option here.
//
// This is the `pulumi-webhook-endpoints/emulator` entry point. Its declaration file may reach only
// modules whose own declarations import no dependency (./types, ../api/contract): the modules that
// hold the zod schema (./options, ./resolve) are used here but never re-exported from, so what they
// export is re-declared below with its plain public type.
import { isIP } from "node:net";
import { WebhooksEmulator } from "./emulator";
import { EMULATOR_PROFILES as profiles } from "./profiles";
import {
  DEFAULT_OPTIONS as defaults,
  WELL_KNOWN_TOKEN,
  nonLoopbackWithoutToken,
  resolveOptions,
} from "./resolve";
import { isLoopbackAddress } from "./server";
import { EmulatorConfigError, type Emulator, type EmulatorOptions, type ResolvedOptions } from "./types";

/**
 * Starts an emulator listening on `options.host`:`options.port` (a free port by default).
 * Throws `EmulatorConfigError` for unusable options (among them: a non-loopback interface with no
 * access token, or the well-known default one) and the listen error if the port is taken.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const resolved = resolveOptions(options);
  const wellKnown = options.accessToken === undefined || options.accessToken === WELL_KNOWN_TOKEN;
  // An address is refused before listening; a host name, once bound (it may resolve to anything).
  if (
    wellKnown &&
    isIP(resolved.host.replace(/^\[(.*)\]$/, "$1")) !== 0 &&
    !isLoopbackAddress(resolved.host)
  ) {
    throw new EmulatorConfigError(nonLoopbackWithoutToken(resolved.host, "pass accessToken"));
  }
  const emulator = new WebhooksEmulator(resolved);
  await emulator.listen();
  if (wellKnown && !emulator.bound.loopback) {
    await emulator.close();
    throw new EmulatorConfigError(nonLoopbackWithoutToken(emulator.bound.address, "pass accessToken"));
  }
  return emulator;
}

/**
 * Named option sets, one per plausible reading of the service document (`profile` option, `--profile`
 * flag). A profile only sets the options it is about; everything else keeps its default.
 */
export const EMULATOR_PROFILES: Record<string, Partial<EmulatorOptions>> = profiles;

/** The defaults, as `startEmulator({})` resolves them (less the clock and the random admin token). Frozen. */
export const DEFAULT_OPTIONS: Readonly<Omit<ResolvedOptions, "now" | "adminToken">> = defaults;

export { EmulatorConfigError, FAULT_KINDS } from "./types";
// Listed, not `export type *`: ./types also holds the value lists the option types come from, and
// a blanket type-only re-export of values is read as missing named exports by ESM importers' tools.
export type {
  ApiRoute,
  AscendingMode,
  Creator,
  EffectiveOptions,
  Emulator,
  EmulatorCounters,
  EmulatorOptions,
  ErrorStyle,
  FaultKind,
  FaultOptions,
  FilterMatch,
  InjectOptions,
  LimitAboveMax,
  ListField,
  NameRewrite,
  PagingStyle,
  Principal,
  RequestLogEntry,
  ResolvedFaultOptions,
  ResolvedOptions,
  ResolvedRewriteOptions,
  ResolvedRouteFaults,
  RewriteOptions,
  RouteFaults,
  SortOrder,
  Truncation,
  UrlRewrite,
  WebhookInput,
  WebhookRecord,
  WebhookRecordPatch,
} from "./types";
