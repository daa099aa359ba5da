// @ts-check
/**
 * A launcher archive, for a platform with no pinned Node.js binary: the plugin's bundle and a script that runs
 * it with the `node` on PATH, saying what it needs when there is none (the bundle itself refuses a node
 * older than the floor).
 */
import { LAUNCHER_NODE_FLOOR, PLUGIN_EXECUTABLE, executableName } from "./platforms.mjs";

/** @typedef {import("./platforms.mjs").Platform} Platform */
/** @typedef {import("./pack.mjs").TarEntry} TarEntry */

/**
 * @param {Platform} platform
 * @param {string} version
 * @param {string} bundle
 * @returns {TarEntry[]}
 */
export function launcherEntries(platform, version, bundle) {
  const script = `${PLUGIN_EXECUTABLE}.js`;
  /** @type {TarEntry} */
  const bundleEntry = { name: script, mode: 0o644, file: bundle };
  const need = `pulumi-resource-webhooks v${version} (${platform}) runs on Node.js ${LAUNCHER_NODE_FLOOR} or newer`;
  if (platform.startsWith("windows-")) {
    // A label rather than an if-block: the message's parentheses would end a block early.
    const cmd = [
      "@echo off",
      `rem ${need}: this launcher starts ${script}, beside it, with the node on PATH.`,
      "where node >nul 2>nul",
      "if errorlevel 1 goto nonode",
      `node "%~dp0${script}" %*`,
      "exit /b %errorlevel%",
      ":nonode",
      `echo ${need}, and no node is on PATH: install Node.js ${LAUNCHER_NODE_FLOOR} or newer 1>&2`,
      "exit /b 1",
      "",
    ].join("\r\n");
    return [{ name: executableName(platform), mode: 0o755, text: cmd }, bundleEntry];
  }
  const sh = [
    "#!/bin/sh",
    `# ${need}: this launcher starts ${script}, beside it, with the node on PATH.`,
    "if ! command -v node >/dev/null 2>&1; then",
    `  echo "${need}, and no node is on PATH: install Node.js ${LAUNCHER_NODE_FLOOR} or newer" >&2`,
    "  exit 1",
    "fi",
    // The engine starts a plugin by its path, so $0 names the directory (no dirname needed on PATH).
    `exec node "\${0%/*}/${script}" "$@"`,
    "",
  ].join("\n");
  return [{ name: PLUGIN_EXECUTABLE, mode: 0o755, text: sh }, bundleEntry];
}
