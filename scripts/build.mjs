// @ts-check
// npm run build: the package (src/ -> dist/), the native provider's generated Node.js SDK
// (sdk/nodejs/ -> dist/native-sdk/, served as `pulumi-webhook-endpoints/native`) and the native plugin as
// one file (dist/plugin/pulumi-resource-webhooks.js, scripts/plugin-bundle.mjs), from which
// `webhooks plugin-archive` makes the plugin archives. The SDK reads its own package.json at run time (its
// version is the plugin version it asks the engine for), so that file is copied next to it.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundlePlugin } from "./plugin-bundle.mjs";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
// A clean build: a file left from an older layout would otherwise ship in the tarball.
rmSync(join(repo, "dist"), { recursive: true, force: true });
for (const project of ["tsconfig.build.json", "tsconfig.native-sdk.json"]) {
  execFileSync(process.execPath, [tsc, "-p", join(repo, project)], { stdio: "inherit" });
}
mkdirSync(join(repo, "dist", "native-sdk"), { recursive: true });
copyFileSync(join(repo, "sdk", "nodejs", "package.json"), join(repo, "dist", "native-sdk", "package.json"));
await bundlePlugin({ outfile: join(repo, "dist", "plugin", "pulumi-resource-webhooks.js"), repo });
