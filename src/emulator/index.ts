// Local emulator of the webhooks open API: the real service has only list and create, documents
// little else, and cannot be reset, so everything the document leaves open is an option here.
import { WebhooksEmulator } from "./emulator";
import { resolveOptions } from "./resolve";
import type { Emulator, EmulatorOptions } from "./types";

/**
 * Starts an emulator listening on `options.host`:`options.port` (a free port by default).
 * Throws `EmulatorConfigError` for unusable options and the listen error if the port is taken.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const emulator = new WebhooksEmulator(resolveOptions(options));
  await emulator.listen();
  return emulator;
}

export { EMULATOR_PROFILES } from "./profiles";
export { DEFAULT_OPTIONS, EmulatorConfigError } from "./resolve";
export { FAULT_KINDS } from "./faults";
export type * from "./types";
