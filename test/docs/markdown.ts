// Just enough Markdown for checking links: where the links are, and which anchors a page has under
// GitHub's rules. Written for the project's own pages (ATX headings, fenced code, inline links); a
// page that needs more (setext headings, reference links) fails the checks loudly rather than
// passing unchecked.
import { dirname, posix } from "node:path";

/** A link as written in a page, with the line its paragraph starts on. */
export interface MarkdownLink {
  target: string;
  line: number;
}

/** A problem the checker found, phrased for the person fixing the page. */
export interface LinkProblem {
  file: string;
  line: number;
  target: string;
  problem: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
// The characters GitHub keeps in a heading's anchor: letters, marks, decimal and letter numbers,
// connector punctuation (`_`), `-` and the space (which becomes `-`). Everything else (other
// punctuation, symbols, other separators, controls) is dropped; the text is lower-cased first.
const DROPPED_FROM_SLUG = /[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\p{Alphabetic} -]/gu;

/** The anchor GitHub gives a heading with this (rendered) text, before duplicates are numbered. */
export function githubSlug(text: string): string {
  return text.toLowerCase().replace(DROPPED_FROM_SLUG, "").replace(/ /g, "-");
}

/** Inline Markdown reduced to the text a reader sees: code spans, links, images, HTML tags, emphasis marks. */
export function renderedText(inline: string): string {
  return withoutCodeSpans(inline, (code) => code)
    .replace(/!?\[((?:[^[\]]|\[[^\]]*\])*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/\*+/g, "")
    .trim();
}

/** Replaces each code span by what `keep` returns for its content (the empty string drops it). */
function withoutCodeSpans(text: string, keep: (code: string) => string): string {
  return text.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (_match, _ticks: string, code: string) =>
    keep(code.replace(/^ (.*) $/, "$1")),
  );
}

/** The page's lines outside fenced code blocks, each with its 1-based number. */
function proseLines(markdown: string): { text: string; line: number }[] {
  const lines = markdown.split(/\r?\n/);
  const prose: { text: string; line: number }[] = [];
  let fence: string | undefined;
  lines.forEach((text, index) => {
    const opening = FENCE.exec(text)?.[1];
    if (fence !== undefined) {
      if (
        opening !== undefined &&
        opening[0] === fence[0] &&
        opening.length >= fence.length &&
        text.trim() === opening
      )
        fence = undefined;
      return;
    }
    if (opening !== undefined) {
      fence = opening;
      return;
    }
    prose.push({ text, line: index + 1 });
  });
  return prose;
}

/**
 * Every anchor the page defines: its headings' GitHub anchors (duplicates numbered -1, -2, ...) and
 * explicit `<a id|name>`.
 */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = ATX_HEADING.exec(text);
    if (heading !== null) {
      const base = githubSlug(renderedText(heading[2] ?? ""));
      let slug = base;
      let count = seen.get(base) ?? 0;
      while (anchors.has(slug)) slug = `${base}-${++count}`;
      seen.set(base, count);
      anchors.add(slug);
    }
    for (const explicit of withoutCodeSpans(text, () => "").matchAll(
      /<a\s[^>]*\b(?:id|name)\s*=\s*"([^"]+)"/gi,
    ))
      anchors.add(explicit[1]!);
  }
  return anchors;
}

/**
 * Every link destination in the page outside code: inline links and images, reference definitions,
 * autolinks, HTML href/src.
 */
export function linksOf(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  // Paragraphs, so a link whose text wraps onto the next line is still one link.
  const paragraphs: { text: string; line: number }[] = [];
  let previousLine = -1;
  for (const { text, line } of proseLines(markdown)) {
    const last = paragraphs[paragraphs.length - 1];
    if (text.trim() === "") {
      previousLine = -1;
      continue;
    }
    if (last !== undefined && previousLine === line - 1 && !ATX_HEADING.test(text)) last.text += `\n${text}`;
    else paragraphs.push({ text, line });
    previousLine = ATX_HEADING.test(text) ? -1 : line;
  }
  for (const { text, line } of paragraphs) {
    const prose = withoutCodeSpans(text, () => "");
    for (const definition of prose.matchAll(/^ {0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?/gm))
      links.push({ target: definition[1]!, line });
    const inline =
      /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|(?:[^\s()]|\([^\s()]*\))+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
    for (const link of prose.matchAll(inline))
      links.push({ target: link[1]!.replace(/^<(.*)>$/, "$1"), line });
    for (const auto of prose.matchAll(/<((?:https?|mailto):[^\s<>]+)>/g))
      links.push({ target: auto[1]!, line });
    for (const html of prose.matchAll(/<(?:a|img)\s[^>]*\b(?:href|src)\s*=\s*"([^"]+)"/gi))
      links.push({ target: html[1]!, line });
  }
  return links;
}

/** What a set of pages needs from the repository: which paths exist (files, and directories holding files). */
export interface Repository {
  /** Repository-relative POSIX paths of the files a clone has. */
  files: ReadonlySet<string>;
  /** A page's text, for the anchors of pages linked to that are not themselves checked. */
  read(path: string): string;
}

/**
 * Checks every link of the given pages (repository-relative POSIX paths to their text). Relative
 * links must name a file or directory of the repository, written relative to the page (a link
 * starting with `/` means something else on GitHub than on npmjs.com), and an `#anchor` must be a
 * heading of the page it points into; a link into a code file may name lines (`#L10`, `#L10-L20`)
 * it has. External links are only checked for form: there is no network here.
 */
export function checkLinks(pages: ReadonlyMap<string, string>, repository: Repository): LinkProblem[] {
  const problems: LinkProblem[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (path: string): Set<string> => {
    let found = anchorCache.get(path);
    if (found === undefined) {
      found = anchorsOf(pages.get(path) ?? repository.read(path));
      anchorCache.set(path, found);
    }
    return found;
  };
  const isDirectory = (path: string): boolean => {
    const prefix = path === "" ? "" : `${path.replace(/\/$/, "")}/`;
    for (const file of repository.files) if (file.startsWith(prefix)) return true;
    return false;
  };
  for (const [file, markdown] of pages) {
    for (const { target, line } of linksOf(markdown)) {
      const report = (problem: string): void => void problems.push({ file, line, target, problem });
      const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(target)?.[1]?.toLowerCase();
      if (scheme !== undefined) {
        if (scheme === "http" || scheme === "https") {
          let url: URL | undefined;
          try {
            url = new URL(target);
          } catch {
            url = undefined;
          }
          if (url === undefined || url.hostname === "" || !url.hostname.includes("."))
            report("is not a well-formed web address");
        } else if (scheme !== "mailto") {
          report(`uses the scheme ${scheme}:, which a reader of the page cannot follow`);
        }
        continue;
      }
      if (target.startsWith("//")) {
        report("is protocol-relative: write the full https:// address");
        continue;
      }
      if (target.startsWith("/")) {
        report("starts with /: write it relative to the page, which GitHub and npmjs.com resolve alike");
        continue;
      }
      const hashAt = target.indexOf("#");
      const pathPart = (hashAt === -1 ? target : target.slice(0, hashAt)).replace(/\?.*$/, "");
      const anchor = hashAt === -1 ? undefined : target.slice(hashAt + 1);
      let decoded: string;
      try {
        decoded = decodeURIComponent(pathPart);
      } catch {
        report("has a malformed percent-escape");
        continue;
      }
      const resolved =
        decoded === "" ? file : posix.normalize(posix.join(dirname(file), decoded)).replace(/\/$/, "");
      if (resolved === ".." || resolved.startsWith("../")) {
        report("points outside the repository");
        continue;
      }
      const isFile = repository.files.has(resolved);
      if (!isFile && !(resolved === "." || isDirectory(resolved))) {
        report(`names ${resolved}, which is not in the repository`);
        continue;
      }
      if (anchor === undefined) continue;
      if (anchor === "") {
        report("ends with an empty #");
      } else if (isFile && resolved.endsWith(".md")) {
        if (!anchors(resolved).has(anchor)) report(`names #${anchor}, which is no heading of ${resolved}`);
      } else if (isFile && /^L\d+(?:-L\d+)?$/.test(anchor)) {
        const lines = repository.read(resolved).split("\n").length;
        const last = Math.max(...anchor.slice(1).split("-L").map(Number));
        if (last > lines) report(`names line ${last} of ${resolved}, which has ${lines} lines`);
      } else {
        report(`names #${anchor} in ${resolved}, which has no headings to point at`);
      }
    }
  }
  return problems;
}

/** The rows of the Markdown table whose header's first cell is `first`: each row's cells. */
export function tableRows(markdown: string, first: string): string[][] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.startsWith(`| ${first} |`));
  if (start < 0) throw new Error(`no table headed "${first}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}
