// `npm run release:archives` run as a maintainer runs it (node scripts/release/archives.mjs): what it refuses
// before building anything, and that it never writes through a link planted in --out (a local attacker's
// symlink must not redirect the write). The
// windows-arm64 archive (a launcher) keeps these runs short; the single executables are built in npm test's
// end-to-end stage (linux-amd64) and in test:deep (every platform, test/release/five-platforms.test.ts).
// Fetches the pinned linux-x64 Node.js (the build runs under it) from the npm registry on first use.
import { execFile } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { RCODESIGN_MISSING } from "../../scripts/release/sea.mjs";

const execute = promisify(execFile);
const REPO = join(__dirname, "..", "..");
const RELEASE = join(REPO, "scripts", "release", "archives.mjs");
const VERSION = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
const dir = mkdtempSync(join(tmpdir(), "pwe-release-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the release build; never rejects. */
async function release(args: string[], env: NodeJS.ProcessEnv = process.env) {
  try {
    const { stdout, stderr } = await execute(process.execPath, [RELEASE, ...args], { env, cwd: dir });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("npm run release:archives", () => {
  it("an unknown platform is a usage error (2) that names every platform; nothing is made", async () => {
    const out = join(dir, "never");
    const result = await release(["--platform", "linux-x64", "--out", out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'release:archives: --platform must be one of linux-amd64, linux-arm64, darwin-amd64, darwin-arm64, windows-amd64, windows-arm64 or all, got "linux-x64"',
    );
    expect(result.stderr).toContain("Usage: npm run release:archives");
    expect(existsSync(out)).toBe(false);
  });

  it("darwin without rcodesign is refused before anything is fetched or built, saying how to get it", async () => {
    const out = join(dir, "no-rcodesign");
    const result = await release(["--platform", "darwin-arm64", "--out", out], {
      ...process.env,
      PWE_RCODESIGN: join(dir, "no-such-rcodesign"),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`release:archives: ${RCODESIGN_MISSING}\n`);
    expect(existsSync(out)).toBe(false);
  });

  it("writes the archive and the checksums file; a link planted at either is refused, its target untouched", async () => {
    const out = join(dir, "out");
    const built = await release(["--platform", "windows-arm64", "--out", out, "--json"]);
    expect(built.code).toBe(0);
    const report = JSON.parse(built.stdout) as {
      archives: { path: string; sha256: string }[];
      checksums: string;
    };
    const archive = join(out, `pulumi-resource-webhooks-v${VERSION}-windows-arm64.tar.gz`);
    const checksums = join(out, `pulumi-resource-webhooks-v${VERSION}-checksums.txt`);
    expect([report.archives.map((a) => a.path), report.checksums]).toEqual([[archive], checksums]);
    expect((await execute("sha256sum", ["-c", checksums], { cwd: out })).stdout).toBe(
      `pulumi-resource-webhooks-v${VERSION}-windows-arm64.tar.gz: OK\n`,
    );

    for (const planted of [archive, checksums]) {
      const victim = join(dir, "victim");
      writeFileSync(victim, "the victim's own content\n");
      rmSync(planted);
      symlinkSync(victim, planted);
      const refused = await release(["--platform", "windows-arm64", "--out", out]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `release:archives: ${planted} is a symbolic link (to ${victim}): refusing to write through it. Remove it, or choose another --out`,
      );
      expect(readFileSync(victim, "utf8")).toBe("the victim's own content\n");
      expect(lstatSync(planted).isSymbolicLink()).toBe(true);
      // Nothing left behind: no staging directory, no partial file.
      expect(readdirSync(out).sort()).toEqual(
        [archive, checksums].map((p) => p.slice(out.length + 1)).sort(),
      );
      rmSync(planted);
      writeFileSync(planted, "");
    }
  });
});
