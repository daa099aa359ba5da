import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  PLATFORMS,
  buildPluginArchive,
  hostPlatform,
  type ArchiveResult,
  type Platform,
} from "../../native/archive";
import { shellQuote } from "../../text";
import { CliError, EXIT, usageError, type ExitCode } from "../exit";
import { jsonText, type Sink } from "../output/output";

/**
 * `webhooks plugin-archive`: the native plugin as archives for `pulumi plugin install`, made from this
 * installed package (its one-file bundle of the plugin), so that a machine with the npm package can
 * install the plugin the Pulumi way, and run it without Node.js where a single executable is made.
 */
export const PLUGIN_ARCHIVE_USAGE = `Usage: webhooks plugin-archive [--out DIR] [--platform P]... [--launcher] [--json]

Writes the native provider plugin as archives in Pulumi's layout, pulumi-resource-webhooks-v<version>-<os>-<arch>.tar.gz,
the executable at the root, and prints the command that installs the one for this machine:
  pulumi plugin install resource webhooks <version> --file <archive>
For this machine's platform the executable is a Node.js single executable application (this node with the
plugin inside: it needs no Node.js where it runs); for the other platforms, and with --launcher, the archive
holds the plugin's bundle and a launcher that runs it with the node on PATH (Node.js 22.19 or newer).
  --out DIR        where the archives are written (default: the current directory)
  --platform P     ${PLATFORMS.join(", ")}, or all; repeatable (default: this machine's)
  --launcher       a launcher archive for this machine's platform too, instead of a single executable
  --json           JSON for scripts: {"archives": [{platform, kind, path, bytes, executableBytes, sha256}], "install": command}`;

export interface PluginArchiveOptions {
  out: string | undefined;
  platforms: readonly string[];
  launcher: boolean;
  json: boolean;
}

/** The package this CLI belongs to: its version and the plugin bundle its build made. */
export interface PackageFiles {
  version: string;
  bundle: string;
}

export function installedPackage(root: string = join(__dirname, "..", "..", "..")): PackageFiles {
  const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string })
    .version;
  return { version, bundle: join(root, "dist", "plugin", "pulumi-resource-webhooks.js") };
}

/** The platforms asked for, checked before anything is built. */
export function selectPlatforms(requested: readonly string[], host: Platform | undefined): Platform[] {
  if (requested.length === 0) {
    if (host === undefined)
      throw usageError(
        `plugin-archive: this machine (${process.platform}-${process.arch}) is none of ${PLATFORMS.join(", ")}: name the platforms with --platform`,
      );
    return [host];
  }
  const selected = new Set<Platform>();
  for (const name of requested) {
    if (name === "all") PLATFORMS.forEach((p) => selected.add(p));
    else if ((PLATFORMS as readonly string[]).includes(name)) selected.add(name as Platform);
    else
      throw usageError(
        `plugin-archive: --platform must be one of ${PLATFORMS.join(", ")} or all, got ${JSON.stringify(name.slice(0, 40))}`,
      );
  }
  return [...selected];
}

/** The command that installs an archive, for a POSIX shell. */
export function installCommand(version: string, archive: string): string {
  return `pulumi plugin install resource webhooks ${shellQuote(version)} --file ${shellQuote(archive)}`;
}

export async function runPluginArchive(
  sink: Sink,
  cwd: string,
  options: PluginArchiveOptions,
  pkg: PackageFiles = installedPackage(),
): Promise<ArchiveResult[]> {
  const host = hostPlatform();
  const platforms = selectPlatforms(options.platforms, host);
  if (!existsSync(pkg.bundle)) {
    throw new CliError(
      EXIT.config,
      `this installation has no plugin bundle (${pkg.bundle}): reinstall pulumi-webhook-endpoints, or in its repository run npm run build`,
    );
  }
  const outDir = resolve(cwd, options.out ?? ".");
  const results: ArchiveResult[] = [];
  for (const platform of platforms) {
    if (!options.json) sink.stderr(`building the ${platform} archive…\n`);
    try {
      results.push(
        await buildPluginArchive({
          platform,
          outDir,
          bundle: pkg.bundle,
          version: pkg.version,
          launcher: options.launcher,
        }),
      );
    } catch (error) {
      // What stops an archive is this machine's node or files, not a bug: say which archive and why.
      throw new CliError(EXIT.config, `plugin-archive: the ${platform} archive: ${(error as Error).message}`);
    }
  }
  const mine = results.find((r) => r.platform === host);
  const install = mine ? installCommand(pkg.version, mine.path) : undefined;
  if (options.json) {
    sink.stdout(jsonText({ archives: results, install: install ?? null }));
    return results;
  }
  for (const r of results) {
    const what =
      r.kind === "single-executable"
        ? "single executable, needs no Node.js"
        : "launcher, needs Node.js 22.19+ on PATH";
    sink.stdout(
      `${r.path}  ${r.platform}  ${what}  ${mb(r.bytes)} (executable ${mb(r.executableBytes)})  sha256 ${r.sha256}\n`,
    );
  }
  if (install !== undefined) sink.stdout(`\nInstall it for Pulumi with:\n  ${install}\n`);
  return results;
}

/** `webhooks plugin-archive` from its parsed flags (it needs no connection to the service). */
export async function pluginArchiveCommand(
  sink: Sink,
  cwd: string,
  values: Record<string, string | boolean | string[] | undefined>,
): Promise<ExitCode> {
  if (values.help === true) {
    sink.stdout(`${PLUGIN_ARCHIVE_USAGE}\n`);
    return EXIT.ok;
  }
  const platforms = values.platform;
  await runPluginArchive(sink, cwd, {
    out: typeof values.out === "string" ? values.out : undefined,
    platforms: Array.isArray(platforms) ? platforms : [],
    launcher: values.launcher === true,
    json: values.json === true,
  });
  return EXIT.ok;
}

function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
