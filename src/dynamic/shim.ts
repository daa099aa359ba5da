import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { LOADED_FROM, STACK } from "./stored-provider";

/** The file scripts/build.mjs writes next to this module's compiled form: stored-provider.js minified. */
export const STORED_PROVIDER_FILE = "stored-provider.min.js";

let minified: string | undefined;

function readMinified(): string {
  const file = join(__dirname, STORED_PROVIDER_FILE);
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    // Only a checkout that was never built can miss it: the package ships it.
    throw new Error(
      `${file} is missing: it is made by the build (npm run build), which minifies stored-provider.js into it`,
      { cause: error },
    );
  }
}

/**
 * The text Pulumi stores in every WebhookEndpoint's `__provider` for a package installed at
 * `packageDir`, in a program that runs as `stack` (`<project>/<stack>`): stored-provider.js (where the
 * text's behaviour is written and explained) as the build minified it, with the two values it embeds
 * written in, where the program loaded the package from and the stack.
 */
export function providerText(packageDir: string, stack: string): string {
  minified ??= readMinified();
  const values: [string, string][] = [
    [LOADED_FROM, resolve(packageDir, "dist", "dynamic", "provider.js")],
    [STACK, stack],
  ];
  // A function, so that `$` in a value is not read as a replacement pattern.
  return values.reduce(
    (text, [placeholder, value]) => text.replace(JSON.stringify(placeholder), () => JSON.stringify(value)),
    minified,
  );
}

let own: { stack: string; text: string } | undefined;

/** The text for the package this module belongs to (dist/dynamic/shim.js → the package's root). */
export function ownProviderText(stack: string): string {
  if (own?.stack !== stack) own = { stack, text: providerText(resolve(__dirname, "..", ".."), stack) };
  return own.text;
}
