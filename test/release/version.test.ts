// One version, written once (package.json's `version`), carried everywhere a user or the engine reads one:
// the plugin's schema, every generated SDK, the lock file, the examples' dependency ranges, the install
// commands the README and docs print, and the CHANGELOG's newest section, which must name a version no earlier
// release used (CHANGELOG.md's earlier sections and test/e2e/fixtures/releases/releases.json list them). The
// plugin's GetPluginInfo is held to it in test/native/server.test.ts (the npm plugin) and
// test/e2e/plugin-archive.test.ts (the installed single executable), the archives' names in
// test/cli/plugin-archive.test.ts.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const REPO = join(__dirname, "..", "..");
const read = (path: string): string => readFileSync(join(REPO, path), "utf8");
const json = (path: string): Record<string, unknown> => JSON.parse(read(path)) as Record<string, unknown>;
const VERSION = json("package.json").version as string;

/** Semantic versions compared by precedence (no pre-release parts: none has been used). */
function compare(a: string, b: string): number {
  const [pa, pb] = [a, b].map((v) => v.split(".").map(Number));
  for (let i = 0; i < 3; i++) if (pa![i] !== pb![i]) return pa![i]! - pb![i]!;
  return 0;
}

/** CHANGELOG.md's release sections, newest first: `## [x.y.z] - <date or "unreleased">`. */
function changelogSections(): { version: string; date: string }[] {
  return [...read("CHANGELOG.md").matchAll(/^## \[([^\]]+)\] - (\S+)$/gm)].map((m) => ({
    version: m[1]!,
    date: m[2]!,
  }));
}

describe("the version is package.json's everywhere", () => {
  it("package.json holds a semantic version", () => {
    expect(VERSION).toMatch(/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/);
  });

  it("the schema the plugin serves and the SDKs are generated from", () => {
    expect(json("src/native/schema.json").version).toBe(VERSION);
  });

  it("the lock file's record of the package itself", () => {
    const lock = json("package-lock.json") as {
      version: string;
      packages: Record<string, { version?: string }>;
    };
    expect([lock.version, lock.packages[""]?.version]).toEqual([VERSION, VERSION]);
  });

  it("each generated SDK: the version it is published as and the plugin version it asks the engine for", () => {
    const nodejs = json("sdk/nodejs/package.json") as { version: string; pulumi: { version: string } };
    const pyproject = /^\s*version = "([^"]+)"$/m.exec(read("sdk/python/pyproject.toml"))?.[1];
    const goDefault = /semver\.MustParse\("([^"]+)"\)/.exec(
      read("sdk/go/webhooks/internal/pulumiUtilities.go"),
    )?.[1];
    const csproj = /<Version>([^<]+)<\/Version>/.exec(
      read("sdk/dotnet/PulumiWebhookEndpoints.Webhooks.csproj"),
    )?.[1];
    expect({
      "sdk/nodejs/package.json version": nodejs.version,
      "sdk/nodejs/package.json pulumi.version": nodejs.pulumi.version,
      "sdk/python/pyproject.toml": pyproject,
      "sdk/python/pulumi_webhooks/pulumi-plugin.json": json("sdk/python/pulumi_webhooks/pulumi-plugin.json")
        .version,
      "sdk/go/webhooks/pulumi-plugin.json": json("sdk/go/webhooks/pulumi-plugin.json").version,
      "sdk/go/webhooks/internal/pulumiUtilities.go": goDefault,
      "sdk/dotnet csproj": csproj,
      "sdk/dotnet/version.txt": read("sdk/dotnet/version.txt").trim(),
      "sdk/dotnet/pulumi-plugin.json": json("sdk/dotnet/pulumi-plugin.json").version,
    }).toEqual({
      "sdk/nodejs/package.json version": VERSION,
      "sdk/nodejs/package.json pulumi.version": VERSION,
      "sdk/python/pyproject.toml": VERSION,
      "sdk/python/pulumi_webhooks/pulumi-plugin.json": VERSION,
      "sdk/go/webhooks/pulumi-plugin.json": VERSION,
      "sdk/go/webhooks/internal/pulumiUtilities.go": VERSION,
      "sdk/dotnet csproj": VERSION,
      "sdk/dotnet/version.txt": VERSION,
      "sdk/dotnet/pulumi-plugin.json": VERSION,
    });
  });

  it("the examples depend on this version's range", () => {
    const ranges: Record<string, unknown> = {};
    const walk = (dir: string): void => {
      for (const entry of readdirSync(join(REPO, dir), { withFileTypes: true })) {
        if (entry.isDirectory() && entry.name !== "node_modules") walk(`${dir}/${entry.name}`);
        else if (entry.name === "package.json")
          ranges[`${dir}/package.json`] = (
            json(`${dir}/package.json`).dependencies as Record<string, unknown>
          )["pulumi-webhook-endpoints"];
      }
    };
    walk("examples");
    expect(Object.keys(ranges).length).toBeGreaterThan(0);
    for (const [file, range] of Object.entries(ranges))
      expect({ file, range }).toEqual({ file, range: `^${VERSION}` });
  });

  it("every version the README and docs print in an install command, archive name or plugin request is this one", () => {
    const pages = ["README.md", ...readdirSync(join(REPO, "docs")).map((name) => `docs/${name}`)].filter(
      (p) => p.endsWith(".md"),
    );
    const patterns = [
      /pulumi plugin install resource webhooks (\d+\.\d+\.\d+)/g,
      /pulumi-resource-webhooks-v(\d+\.\d+\.\d+)-/g,
      /pulumi package add webhooks@(\d+\.\d+\.\d+)/g,
      /webhooks-(\d+\.\d+\.\d+)\.yaml/g,
      /pulumi_webhooks-(\d+\.\d+\.\d+)-py3/g,
    ];
    const stated: { page: string; version: string }[] = [];
    for (const page of pages)
      for (const pattern of patterns)
        for (const match of read(page).matchAll(pattern)) stated.push({ page, version: match[1]! });
    // The docs do print versions: a pattern that matches nothing anywhere has lost its phrase.
    expect(stated.length).toBeGreaterThan(5);
    expect(stated.filter((s) => s.version !== VERSION)).toEqual([]);
  });
});

describe("a version never released before, with its CHANGELOG entry", () => {
  const sections = changelogSections();
  const released = (json("test/e2e/fixtures/releases/releases.json") as { released: Record<string, string> })
    .released;

  it("the CHANGELOG's newest section is package.json's version", () => {
    expect(sections[0]?.version).toBe(VERSION);
  });

  it("no earlier section, and no released commit, used this version; each earlier one is lower, in order", () => {
    const earlier = sections.slice(1).map((s) => s.version);
    expect(earlier).not.toContain(VERSION);
    expect(Object.keys(released)).not.toContain(VERSION);
    const all = sections.map((s) => s.version);
    expect([...all].sort(compare).reverse()).toEqual(all);
    expect(new Set(all).size).toBe(all.length);
  });

  it("the CHANGELOG's earlier sections are exactly the releases made, each dated, each with a link", () => {
    expect(
      sections
        .slice(1)
        .map((s) => s.version)
        .sort(compare),
    ).toEqual(Object.keys(released).sort(compare));
    for (const { version, date } of sections.slice(1))
      expect({ version, date }).toEqual({
        version,
        date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) as unknown,
      });
    expect(sections[0]?.date).toMatch(/^(\d{4}-\d{2}-\d{2}|unreleased)$/);
    for (const { version } of sections)
      expect(read("CHANGELOG.md")).toMatch(new RegExp(`^\\[${version}\\]: https://`, "m"));
  });

  it("the upgrade tests start from the newest release before this one", () => {
    const previous = (json("test/e2e/fixtures/releases/releases.json") as { previous: { version: string } })
      .previous;
    expect(previous.version).toBe(sections[1]?.version);
  });
});

describe("the Python SDK's pin on the pulumi package", () => {
  it("is stated in the README and docs as the generated pyproject.toml has it", () => {
    const dependencies = /^\s*dependencies = \[(.*)\]$/m.exec(read("sdk/python/pyproject.toml"))?.[1] ?? "";
    const pin = /"pulumi(>=[^"]+)"/.exec(dependencies)?.[1];
    expect(pin).toMatch(/^>=\d+\.\d+\.\d+,<\d+\.\d+\.\d+$/);
    const stated = ["README.md", ...readdirSync(join(REPO, "docs")).map((name) => `docs/${name}`)]
      .filter((page) => page.endsWith(".md"))
      .flatMap((page) => [...read(page).matchAll(/`pulumi(>=[^`]*)`/g)].map((m) => ({ page, pin: m[1] })));
    expect(stated.length).toBeGreaterThan(0);
    expect(stated.filter((s) => s.pin !== pin)).toEqual([]);
  });
});
