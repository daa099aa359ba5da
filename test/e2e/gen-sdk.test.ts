// `pulumi package gen-sdk` from the built plugin, installed the Pulumi way, writes the SDKs committed in sdk/
// (docs/native-plugin.md, "SDKs from the installed plugin"): the real CLI starts the plugin, asks it for its
// schema and hands the bound schema to each language's host, which generates the SDK. The official Python, Go
// and Node.js hosts cannot be had here (the Go module proxy refuses their modules); the repository's stand-in
// host (scripts/engine/language-host.cjs, as pulumi-language-nodejs and, with -runtime, as
// pulumi-language-python and pulumi-language-go) runs the generator the official host links, called as it calls
// it (scripts/sdkgen -host-dir). .NET and Java need their own hosts, absent here.
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "../../scripts/harness/process.mjs";
import { E2E_DIR, REPO } from "./paths";
import { installPlugin, ownLanguageHosts, sdkgenPath } from "./plugin";
import { backendFor } from "./support";

/** What sdkgen adds to sdk/go beyond what the Go generator writes (sdk/README.md): a go.mod, and go.sum by tidy. */
const ADDED_TO_SDK_GO = ["go.mod", "go.sum"];

describe("pulumi package gen-sdk webhooks, from the installed plugin, writes sdk/", () => {
  const backend = backendFor("gen-sdk");
  const out = join(E2E_DIR, "gen-sdk-out");
  let env: Record<string, string>;

  beforeAll(async () => {
    await installPlugin(backend.home);
    rmSync(out, { recursive: true, force: true });
    // The CLI copy with this checkout's hosts beside it, the plugin nowhere on PATH (installed in PULUMI_HOME).
    env = {
      PULUMI_HOME: backend.home,
      PATH: `${ownLanguageHosts()}:${dirname(process.execPath)}`,
      PWE_SDKGEN: sdkgenPath(),
    };
  });

  it.each(["python", "go", "nodejs"])("%s: identical to sdk/", async (language) => {
    const generated = await runProcess(
      "pulumi",
      ["package", "gen-sdk", "webhooks", "--language", language, "--out", out],
      {
        cwd: E2E_DIR,
        env,
      },
    );
    expect(generated.code, generated.output).toBe(0);
    const diff = await runProcess(
      "diff",
      [
        "-r",
        ...(language === "go" ? ADDED_TO_SDK_GO.flatMap((name) => ["-x", name]) : []),
        join(REPO, "sdk", language),
        join(out, language),
      ],
      { cwd: E2E_DIR },
    );
    expect(diff.output).toBe("");
    expect(diff.code).toBe(0);
  });
});
