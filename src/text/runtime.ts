/** The oldest Node.js this package runs on (package.json's `engines`; checked by test/docs). */
export const MIN_NODE = "22.19.0";

/**
 * Why this Node.js cannot run `what`, saying what to do; undefined when it can. A bin checks it
 * first, so an old Node.js gets this sentence instead of a TypeError from deep inside a dependency.
 */
export function unsupportedNode(
  what: string,
  instead = "",
  version: string = process.versions.node,
): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const [needMajor = 0, needMinor = 0] = MIN_NODE.split(".").map(Number);
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `${what} needs Node.js ${MIN_NODE} or newer, and this is Node.js ${version}: install a newer Node.js${instead}`;
}
