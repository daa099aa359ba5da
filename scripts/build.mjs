// @ts-check
// npm run build: the package (src/ -> dist/) and the native provider's generated Node.js SDK
// (sdk/nodejs/ -> dist/native-sdk/, served as `pulumi-webhook-endpoints/native`). The SDK reads its own
// package.json at run time (its version is the plugin version it asks the engine for), so that file is
// copied next to it. The plugin's one-file bundle is not part of the package: the release archives are
// made from it (npm run release:archives, scripts/release/).
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";
import { LOADED_FROM, STACK } from "../src/dynamic/stored-provider.js";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
// A clean build: a file left from an older layout would otherwise ship in the tarball.
rmSync(join(repo, "dist"), { recursive: true, force: true });
for (const project of ["tsconfig.build.json", "tsconfig.native-sdk.json"]) {
  execFileSync(process.execPath, [tsc, "-p", join(repo, project)], { stdio: "inherit" });
}
mkdirSync(join(repo, "dist", "native-sdk"), { recursive: true });
copyFileSync(join(repo, "sdk", "nodejs", "package.json"), join(repo, "dist", "native-sdk", "package.json"));
writeStoredProvider();

/**
 * The text every WebhookEndpoint stores in `__provider` (twice per resource, and sent in every
 * engine call): src/dynamic/stored-provider.js minified, with a map back to it. shim.ts writes the
 * install path and the stack over their placeholders, so each must be there, once, as a JSON string.
 */
function writeStoredProvider() {
  const source = join(repo, "src", "dynamic", "stored-provider.js");
  const out = join(repo, "dist", "dynamic", "stored-provider.min.js");
  // The host calls `handler` alone: what else the source exports (for this build, shim.ts and the
  // tests) is not stored.
  const exportsLine = "module.exports = { LOADED_FROM, STACK, locateProvider, handler };";
  const text = readFileSync(source, "utf8");
  if (text.split(exportsLine).length !== 2)
    throw new Error(`${source} must end its exports with: ${exportsLine}`);
  const { code, map, warnings } = transformSync(text.replace(exportsLine, "module.exports = { handler };"), {
    loader: "js",
    format: "cjs",
    // package.json's engines: the provider host runs on the user's Node.js.
    target: "node22",
    minify: true,
    legalComments: "none",
    sourcemap: "external",
    sourcefile: "../../src/dynamic/stored-provider.js",
    sourcesContent: false,
  });
  if (warnings.length > 0) throw new Error(`esbuild warned on ${source}: ${JSON.stringify(warnings)}`);
  for (const [name, placeholder] of Object.entries({ LOADED_FROM, STACK })) {
    const placeholders = code.split(JSON.stringify(placeholder)).length - 1;
    if (placeholders !== 1)
      throw new Error(`the minified ${source} holds its ${name} placeholder ${placeholders} times, not once`);
  }
  writeFileSync(out, code.trimEnd());
  writeFileSync(`${out}.map`, map);
}
