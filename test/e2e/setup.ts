import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { E2E_DIR, BASE_DIR, PACK_DIR, REPO, npm } from "./paths";

/**
 * Packs the package exactly as it would be published and installs the tarball into a base
 * project the way a user would (`npm install`), so every end-to-end project runs the packed
 * build, not the checkout. Fails, never skips, when the Pulumi CLI is missing.
 */
export default function setup(): void {
  try {
    execFileSync("pulumi", ["version"], { stdio: "pipe" });
  } catch {
    throw new Error("the Pulumi CLI is not on PATH: run the tests with `bash scripts/test.sh`, which sources scripts/engine.sh");
  }
  rmSync(E2E_DIR, { recursive: true, force: true });
  mkdirSync(PACK_DIR, { recursive: true });
  execFileSync(process.execPath, [join(REPO, "node_modules/typescript/bin/tsc"), "-p", join(REPO, "tsconfig.build.json")], { stdio: "inherit" });
  npm(["pack", "--pack-destination", PACK_DIR, "--loglevel=error"], REPO);
  const tarball = readdirSync(PACK_DIR).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack produced no tarball");
  mkdirSync(join(BASE_DIR, "projects"), { recursive: true });
  writeFileSync(
    join(BASE_DIR, "package.json"),
    JSON.stringify(
      {
        name: "e2e-base",
        private: true,
        dependencies: { "@pulumi/pulumi": "3.250.0", "pulumi-webhook-endpoints": `file:${join(PACK_DIR, tarball)}` },
        devDependencies: { typescript: "~6.0.3", "@types/node": "^24.10.1" },
      },
      null,
      2,
    ),
  );
  npm(["install", "--no-audit", "--no-fund", "--loglevel=error"], BASE_DIR);
}
