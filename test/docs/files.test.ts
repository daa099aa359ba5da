// docs/development.md's "Where things live" names every file under src/ and nothing else: a file
// added, moved or removed without its row fails here.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const REPO = join(__dirname, "..", "..");

/** The files the table names: a bold row opens a folder (or names a file), plain rows are files in it. */
export function filesInTable(markdown: string): string[] {
  const section = markdown.split(/^## Where things live$/m)[1]?.split(/^## /m)[0];
  if (section === undefined) throw new Error('docs/development.md has no "## Where things live" section');
  const files: string[] = [];
  let folder: string | undefined;
  for (const line of section.split("\n")) {
    const bold = /^\| \*\*`(src\/[^`]*)`\*\* \|/.exec(line);
    if (bold) {
      if (bold[1]!.endsWith("/")) folder = bold[1];
      else files.push(bold[1]!);
      continue;
    }
    const plain = /^\| `([^`]+)` \|/.exec(line);
    if (plain && folder !== undefined) files.push(`${folder}${plain[1]}`);
    if (line.trim() === "") folder = undefined;
  }
  return files;
}

describe("docs/development.md, where things live", () => {
  it("has a row for every file under src/, and none for a file that is not there", () => {
    const tracked = execFileSync("git", ["ls-files", "src"], { cwd: REPO, encoding: "utf8" })
      .trim()
      .split("\n");
    const table = filesInTable(readFileSync(join(REPO, "docs", "development.md"), "utf8"));
    expect(
      table.filter((file) => !tracked.includes(file)),
      "rows for files that do not exist",
    ).toEqual([]);
    expect(
      tracked.filter((file) => !table.includes(file)),
      "files without a row",
    ).toEqual([]);
  });

  it("reads folders, files in them and files named alone", () => {
    const markdown = [
      "## Where things live",
      "| path | what |",
      "|---|---|",
      "| **`src/index.ts`** | entry |",
      "| **`src/cli/`** | the CLI |",
      "| `main.ts` | entry |",
      "| `commands/list.ts` | list |",
      "",
      "| `elsewhere.ts` | not in src |",
      "## Tests",
      "| `test.ts` | no |",
    ].join("\n");
    expect(filesInTable(markdown)).toEqual(["src/index.ts", "src/cli/main.ts", "src/cli/commands/list.ts"]);
  });
});
