// Every link in the README, the docs and the committed benchmark results resolves: a relative link
// to a file or directory of the repository (as a clone has it: tracked, or new and not ignored),
// an #anchor to a heading of the page it points into, under GitHub's anchor rules. External links
// are checked for form only (no network here).
//
// The README is also packed into the npm package, without docs/. Its links stay relative: npmjs.com
// rewrites a relative link against the package's `repository` (a GitHub repository becomes
// https://github.com/<owner>/<repo>/blob/HEAD/<path>), so one relative link works on GitHub, on
// npmjs.com and in a checkout, and this test can check it, which it could not do for an absolute
// URL. What that needs, a GitHub `repository` and no link starting with `/`, is checked here too.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { anchorsOf, checkLinks, githubSlug, linksOf, renderedText, type Repository } from "./markdown";

const REPO = join(__dirname, "..", "..");

/** The files a clone of this checkout would have: tracked ones, and new ones git does not ignore. */
function repositoryFiles(): Set<string> {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: REPO,
    encoding: "utf8",
  });
  return new Set(listed.split("\0").filter((path) => path !== ""));
}

const FILES = repositoryFiles();

function isIgnored(path: string): boolean {
  try {
    execFileSync("git", ["check-ignore", "-q", "--no-index", path], { cwd: REPO });
    return true;
  } catch {
    return false;
  }
}
const REPOSITORY: Repository = { files: FILES, read: (path) => readFileSync(join(REPO, path), "utf8") };
/** The project's own pages; the SDKs' READMEs under sdk/ are written by Pulumi's generators. */
const PAGES = [...FILES]
  .filter((path) => path.endsWith(".md") && !path.startsWith("sdk/") && !path.includes("node_modules/"))
  .sort();

describe("links in the README, docs/ and bench/results/", () => {
  it("checks the pages that matter: the README, every page under docs/, the committed benchmark results", () => {
    expect(PAGES).toContain("README.md");
    expect(PAGES.filter((path) => path.startsWith("docs/")).length).toBeGreaterThanOrEqual(10);
    expect(PAGES.some((path) => path.startsWith("bench/results/"))).toBe(true);
  });

  it("every relative link names a file or directory of the repository, and every #anchor a heading there", () => {
    const pages = new Map(PAGES.map((path) => [path, REPOSITORY.read(path)]));
    const linkCount = [...pages.values()].reduce((sum, markdown) => sum + linksOf(markdown).length, 0);
    expect(linkCount).toBeGreaterThan(100);
    expect(checkLinks(pages, REPOSITORY)).toEqual([]);
  });

  it("every repository path a page or a source comment names in backticks (src/…, test/…, scripts/…) exists", () => {
    // Named without a link, a path drifts silently when its file moves or is renamed.
    const SOURCES = [...FILES].filter((path) => /^(src|test|scripts)\/.*\.(ts|mts|mjs|cjs|js)$/.test(path));
    const named = /`((?:src|test|scripts|bench|docs)\/[\w./-]+\.(?:ts|mts|mjs|cjs|js|md|json|sh))`/g;
    const missing: string[] = [];
    for (const path of [...PAGES, ...SOURCES]) {
      const text = REPOSITORY.read(path);
      for (const [, target] of text.matchAll(named))
        if (!FILES.has(target!)) missing.push(`${path}: ${target}`);
    }
    // A path git ignores is something a command writes (bench/results/results.md), not a file to find.
    const written = (line: string) => isIgnored(line.slice(line.indexOf(": ") + 2));
    expect(missing.filter((line) => !written(line))).toEqual([]);
  });

  it("the README links every page under docs/ (a page nobody links is a page nobody finds)", () => {
    const readmeTargets = new Set(
      linksOf(REPOSITORY.read("README.md")).map(({ target }) => target.replace(/#.*$/, "")),
    );
    const docsPages = PAGES.filter((path) => path.startsWith("docs/"));
    expect(docsPages.filter((path) => !readmeTargets.has(path))).toEqual([]);
  });

  it("the README's relative links also work on npmjs.com: package.json names the GitHub repository they resolve against", () => {
    const manifest = JSON.parse(REPOSITORY.read("package.json")) as {
      repository?: { type?: string; url?: string } | string;
      files?: string[];
    };
    const url = typeof manifest.repository === "string" ? manifest.repository : manifest.repository?.url;
    expect(url).toMatch(/^(?:git\+)?https:\/\/github\.com\/[\w.-]+\/[\w.-]+?(?:\.git)?$/);
    expect(manifest.files).toContain("README.md");
  });
});

describe("the link checker itself", () => {
  // A small repository in memory: the checker must report exactly what is broken in it.
  const files = new Set(["README.md", "docs/guide.md", "src/index.ts", "examples/quickstart/index.ts"]);
  const texts: Record<string, string> = {
    "README.md": [
      "# Project",
      "",
      "See [the guide](docs/guide.md), [its setup](docs/guide.md#set-it-up), [a wrapped",
      "link](docs/guide.md#the-cli-webhooks), [the example](examples/quickstart) and [line 1](src/index.ts#L1).",
      "",
      "Broken: [gone](docs/missing.md), [no such heading](docs/guide.md#no-such-heading), [root](/docs/guide.md),",
      "[local](#nowhere), [too far](src/index.ts#L9), [web](https://), [fine](https://example.com/a?b#c).",
      "",
      "```sh",
      "[not a link](nowhere.md)",
      "```",
      "",
      "`[code, not a link](nowhere.md)`",
    ].join("\n"),
    "docs/guide.md": [
      "# Guide",
      "",
      "## Set it up",
      "",
      "## The CLI `webhooks`",
      "",
      "Back to [the README](../README.md#project).",
    ].join("\n"),
    "src/index.ts": "export {};\n",
  };
  const repository: Repository = { files, read: (path) => texts[path] ?? "" };
  const pages = new Map([
    ["README.md", texts["README.md"]!],
    ["docs/guide.md", texts["docs/guide.md"]!],
  ]);

  it("reports a missing file, a missing anchor in another page and in the same page, a root-relative link, lines past the end and a malformed address, and nothing else", () => {
    const problems = checkLinks(pages, repository).map(
      ({ file, line, target }) => `${file}:${line} ${target}`,
    );
    expect(problems).toEqual([
      "README.md:6 docs/missing.md",
      "README.md:6 docs/guide.md#no-such-heading",
      "README.md:6 /docs/guide.md",
      "README.md:6 #nowhere",
      "README.md:6 src/index.ts#L9",
      "README.md:6 https://",
    ]);
  });

  it("says what is wrong in words a person can act on", () => {
    const byTarget = new Map(checkLinks(pages, repository).map(({ target, problem }) => [target, problem]));
    expect(byTarget.get("docs/missing.md")).toBe("names docs/missing.md, which is not in the repository");
    expect(byTarget.get("docs/guide.md#no-such-heading")).toBe(
      "names #no-such-heading, which is no heading of docs/guide.md",
    );
    expect(byTarget.get("#nowhere")).toBe("names #nowhere, which is no heading of README.md");
  });

  it("passes the same pages once the broken links are fixed", () => {
    const fixed = new Map(pages);
    fixed.set(
      "README.md",
      texts["README.md"]!.split("\n")
        .filter((line) => !/Broken|too far/.test(line))
        .join("\n"),
    );
    expect(checkLinks(fixed, repository)).toEqual([]);
  });

  it("makes anchors by GitHub's rules: lower case, punctuation and symbols dropped, spaces to hyphens, code and link text kept, duplicates numbered", () => {
    expect(githubSlug("Driving it from a pipeline's own code (Automation API)")).toBe(
      "driving-it-from-a-pipelines-own-code-automation-api",
    );
    expect(githubSlug("What this cannot prevent")).toBe("what-this-cannot-prevent");
    expect(githubSlug("Matching: exact filters by default")).toBe("matching-exact-filters-by-default");
    expect(githubSlug("N = 1,000 — and 50% more")).toBe("n--1000--and-50-more");
    expect(githubSlug("webhook_id and Ünïcode")).toBe("webhook_id-and-ünïcode");
    expect(renderedText("The operator CLI `webhooks`")).toBe("The operator CLI webhooks");
    expect(renderedText("See [the **client**](client.md)")).toBe("See the client");
    expect([...anchorsOf("# A\n\n## Notes\n\n### Notes\n\n## Notes\n\n```\n# not a heading\n```\n")]).toEqual(
      ["a", "notes", "notes-1", "notes-2"],
    );
  });
});
