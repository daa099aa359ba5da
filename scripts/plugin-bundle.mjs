// @ts-check
/**
 * The native plugin as one JavaScript file: src/native/bin.ts and everything it loads (the provider core,
 * the client, undici, zod, @grpc/grpc-js, google-protobuf and @pulumi/pulumi's generated protocol stubs),
 * bundled by esbuild. It needs nothing but Node.js built-ins, so the release archives make it a Node.js
 * single executable application (or ship it with a launcher): scripts/release/archives.mjs.
 *
 * `node scripts/plugin-bundle.mjs <outfile>` runs it alone.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Node.js the launcher builds need: undici 8's floor, as package.json's engines says. */
export const NODE_FLOOR = { major: 22, minor: 19 };

/**
 * src/native/grpc.ts takes its gRPC modules through `createRequire` at @pulumi/pulumi's location, which a
 * bundler cannot follow. For the bundle its `pulumiRequire("x")` calls become plain `require("x")` resolved
 * from that same directory, so the bundle holds the very copies the package's own build loads.
 * @param {string} repo
 * @returns {import("esbuild").Plugin}
 */
function pulumiRequires(repo) {
  const pulumiDir = dirname(createRequire(join(repo, "package.json")).resolve("@pulumi/pulumi/package.json"));
  const definition = 'const pulumiRequire = createRequire(require.resolve("@pulumi/pulumi/package.json"));';
  return {
    name: "pulumi-requires",
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]native[\\/]grpc\.ts$/ }, (args) => {
        const source = readFileSync(args.path, "utf8");
        const calls = source.split("pulumiRequire(").length - 1;
        if (!source.includes(definition) || calls < 2) {
          throw new Error(
            `${args.path} no longer defines pulumiRequire as scripts/plugin-bundle.mjs expects: update the bundle's rewrite`,
          );
        }
        const contents = source.replace(definition, "").replaceAll("pulumiRequire(", "require(");
        return { contents, loader: "ts", resolveDir: pulumiDir };
      });
    },
  };
}

/**
 * @param {string} repo
 * @returns {string}
 */
function packageVersion(repo) {
  /** @type {unknown} */
  const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
  const version = typeof pkg === "object" && pkg !== null && "version" in pkg ? pkg.version : undefined;
  if (typeof version !== "string") throw new Error(`${join(repo, "package.json")} has no version`);
  return version;
}

/**
 * Writes the bundle.
 * @param {{ outfile: string, repo?: string }} options
 * @returns {Promise<{ outfile: string, bytes: number, version: string }>}
 */
export async function bundlePlugin({ outfile, repo = REPO }) {
  const esbuild = await import("esbuild");
  const version = packageVersion(repo);
  const { major, minor } = NODE_FLOOR;
  // Checked first thing: a launcher build runs on whatever `node` is on PATH (a single executable carries its own).
  const nodeCheck =
    `{const v=process.versions.node.split(".").map(Number);if(v[0]<${major}||(v[0]===${major}&&v[1]<${minor})){` +
    `process.stderr.write("pulumi-resource-webhooks v${version}: needs Node.js ${major}.${minor} or newer, found "+process.version+" at "+process.execPath+": install a newer Node.js, or use a single-executable archive of the plugin\\n");process.exit(1)}}`;
  const result = await esbuild.build({
    entryPoints: [join(repo, "src", "native", "bin.ts")],
    outfile,
    // Module names in the bundle are relative to this directory: to the working directory by default, which
    // put "../../<the build machine's path>/src/..." into a bundle built elsewhere than the repository.
    absWorkingDir: repo,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: `node${major}`,
    // Smaller and faster to load, names kept so that stack traces still read.
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    legalComments: "eof",
    banner: { js: `"use strict";${nodeCheck}` },
    define: { PWE_PLUGIN_VERSION: JSON.stringify(version) },
    plugins: [pulumiRequires(repo)],
    logLevel: "warning",
    metafile: true,
  });
  if (result.errors.length > 0 || result.warnings.length > 0)
    throw new Error("bundling the plugin produced errors or warnings (above)");
  const bytes = result.metafile.outputs[Object.keys(result.metafile.outputs)[0] ?? ""]?.bytes ?? 0;
  return { outfile, bytes, version };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outfile = process.argv[2];
  if (outfile === undefined) throw new Error("usage: node scripts/plugin-bundle.mjs <outfile>");
  const { bytes, version } = await bundlePlugin({ outfile });
  console.log(`plugin bundle v${version}: ${outfile} (${bytes} bytes)`);
}
