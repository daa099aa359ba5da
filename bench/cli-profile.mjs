// @ts-check
// The Pulumi CLI's own CPU profile (`pulumi --profiling <prefix>`, Go's pprof), read with `go tool pprof`:
// where the engine's time goes for one command, in the few places that follow what a resource stores.
import { execFileSync } from "node:child_process";

/**
 * Functions of the CLI whose inclusive time the report gives, each with what it is:
 * - the property log: every property (and every key of an object property) of every provider and
 *   resource-monitor call is logged, encoded, deflated and encrypted, at every verbosity
 *   (pkg/v3/logging's PropertySinkHandler, reached through VerboseLogger.Infof);
 * - marshalling: the properties of every call to and from a plugin, that log included;
 * - the snapshot: the state written after the command (and at every step unless checkpoints are skipped);
 * - GC: Go's garbage collector's background marking.
 */
export const CLI_FRAMES = {
  "property log": "github.com/pulumi/pulumi/sdk/v3/go/common/util/logging.VerboseLogger.Infof",
  marshalling: [
    "github.com/pulumi/pulumi/pkg/v3/resource/plugin.MarshalProperties",
    "github.com/pulumi/pulumi/pkg/v3/resource/plugin.UnmarshalProperties",
  ],
  snapshot: "github.com/pulumi/pulumi/pkg/v3/backend.(*SnapshotManager).saveSnapshot",
  GC: "runtime.gcBgMarkWorker",
};

/** @typedef {{ totalMs: number, frames: Record<keyof typeof CLI_FRAMES, number> }} CliBreakdown */

/**
 * The CLI's sampled CPU in a profile and the inclusive time of each of CLI_FRAMES (a list: their sum), ms;
 * undefined when `go tool pprof` cannot read it (no Go toolchain on PATH).
 * @param {string} binary the `pulumi` that wrote the profile
 * @param {string} file its .cpu profile
 * @returns {CliBreakdown | undefined}
 */
export function cliBreakdown(binary, file) {
  let text;
  try {
    text = execFileSync("go", ["tool", "pprof", "-top", "-cum", "-nodecount=1000000", binary, file], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch {
    return undefined;
  }
  const total = /Total samples = ([\d.]+)(ms|s)/.exec(text);
  if (total === null) return undefined;
  const toMs = (/** @type {string} */ value, /** @type {string} */ unit) =>
    Number(value) * (unit === "s" ? 1000 : unit === "ms" ? 1 : unit === "us" ? 0.001 : 1000 * 60);
  /** @type {Map<string, number>} */
  const cum = new Map();
  // "flat flat% sum% cum cum% name": the cum column is the fourth.
  for (const line of text.split("\n")) {
    const m =
      /^\s*[-\d.]+(?:ms|s|us|min)?\s+[-\d.]+%\s+[-\d.]+%\s+([\d.]+)(ms|s|us|min)\s+[\d.]+%\s+(.+)$/.exec(
        line,
      );
    if (m !== null) cum.set((m[3] ?? "").trim(), toMs(m[1] ?? "0", m[2] ?? "s"));
  }
  const frames = /** @type {CliBreakdown["frames"]} */ (
    Object.fromEntries(
      Object.entries(CLI_FRAMES).map(([name, at]) => [
        name,
        (Array.isArray(at) ? at : [at]).reduce((sum, frame) => sum + (cum.get(frame) ?? 0), 0),
      ]),
    )
  );
  return { totalMs: toMs(total[1] ?? "0", total[2] ?? "s"), frames };
}
