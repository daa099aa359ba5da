import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Set to the package's version by the single-file build of the plugin (scripts/plugin-bundle.mjs),
 * which has no package.json beside it; undefined in the package's own build.
 */
declare const PWE_PLUGIN_VERSION: string | undefined;

/** The package version the plugin reports; the schema's version is set to it. */
export function packageVersion(): string {
  if (typeof PWE_PLUGIN_VERSION === "string") return PWE_PLUGIN_VERSION;
  const pkg = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
    version: string;
  };
  return pkg.version;
}
