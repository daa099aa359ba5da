// The plugin's one-file bundle, which every release executable carries: the same bytes wherever the build is
// started, and no path of the machine that built it.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const REPO = join(__dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "pwe-release-bundle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the plugin bundle", () => {
  it("is the same bytes built from the repository, from / and from elsewhere, and names no path of the build machine", async () => {
    const builds = [
      { cwd: REPO, out: join(dir, "from-repo.js") },
      { cwd: "/", out: join(dir, "from-root.js") },
      { cwd: dir, out: join(dir, "from-tmp.js") },
    ];
    for (const { cwd, out } of builds)
      await run(process.execPath, [join(REPO, "scripts", "plugin-bundle.mjs"), out], { cwd });
    const [first, ...others] = builds.map(({ out }) => readFileSync(out));
    for (const other of others) expect(other.equals(first!)).toBe(true);
    const text = first!.toString("utf8");
    // Module names (esbuild's __esm keys) are relative to the repository: src/..., node_modules/...
    expect(text).toContain('"src/text/service.ts"');
    for (const leak of [REPO, REPO.slice(1), dir, tmpdir(), '"../'])
      expect(text.includes(leak), `the bundle holds ${leak}`).toBe(false);
  });
});
