// Readers of what `webhooks adopt` prints, each following its consumer's own rules, for tests that
// run many cases in-process. The TypeScript compiler and a POSIX shell are the real ones (see
// adopt-consumers.test.ts); YAML is modelled here from the sources of the two readers Pulumi YAML
// uses, and the engine itself reads the same output in test/e2e/adopt-yaml.test.ts:
// - gopkg.in/yaml.v3 v3.0.1: readerc.go (which characters may appear at all) and scannerc.go,
//   yaml_parser_scan_flow_scalar (the escapes of a double-quoted scalar, and that `\uD800`-`\uDFFF`
//   escapes are "invalid Unicode character escape code");
// - github.com/pulumi/pulumi-yaml v1.38.3, pkg/pulumiyaml/ast/interpolation.go parseInterpolate:
//   `$$` is `$`, `${` starts a property access, in any string.
import { execFileSync } from "node:child_process";
import ts from "typescript";

/** Characters yaml.v3's reader accepts at all (readerc.go: "control characters are not allowed"). */
function yamlReaderAccepts(code: number): boolean {
  return (
    code === 0x09 ||
    code === 0x0a ||
    code === 0x0d ||
    (code >= 0x20 && code <= 0x7e) ||
    code === 0x85 ||
    (code >= 0xa0 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

/** Line breaks for yaml.v3 (yamlprivateh.go is_break): raw inside a quoted scalar, they fold. */
const YAML_BREAKS = new Set([0x0a, 0x0d, 0x85, 0x2028, 0x2029]);

const SIMPLE_ESCAPES: Record<string, string> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "'": "'",
  "\\": "\\",
  N: "\u0085",
  _: "\u00a0",
  L: "\u2028",
  P: "\u2029",
};

/**
 * The value of a double-quoted YAML scalar written on one line (`"..."`, nothing after it), as
 * yaml.v3 reads it; throws where yaml.v3 refuses it. Stricter than yaml.v3 in one way: a raw line
 * break or tab inside the quotes is an error (yaml.v3 would fold it; adopt never writes one).
 */
export function readYamlDoubleQuoted(scalar: string): string {
  if (!scalar.startsWith('"') || !scalar.endsWith('"') || scalar.length < 2)
    throw new Error(`not a double-quoted scalar: ${scalar}`);
  const body = scalar.slice(1, -1);
  let out = "";
  let i = 0;
  while (i < body.length) {
    const code = body.codePointAt(i)!;
    const char = String.fromCodePoint(code);
    if (!yamlReaderAccepts(code))
      throw new Error(`yaml.v3 refuses the raw character U+${code.toString(16).toUpperCase()}`);
    if (YAML_BREAKS.has(code) || code === 0x09)
      throw new Error(`a raw line break or tab U+${code.toString(16)} inside the scalar`);
    if (char === '"') throw new Error("an unescaped quote ends the scalar early");
    if (char !== "\\") {
      out += char;
      i += char.length;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) throw new Error("a backslash at the end");
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      out += simple;
      i += 2;
      continue;
    }
    const digits = next === "x" ? 2 : next === "u" ? 4 : next === "U" ? 8 : 0;
    if (digits === 0) throw new Error(`yaml.v3: found unknown escape character \\${next}`);
    const hex = body.slice(i + 2, i + 2 + digits);
    if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex))
      throw new Error("yaml.v3: did not find expected hexdecimal number");
    const value = parseInt(hex, 16);
    if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff)
      throw new Error("yaml.v3: found invalid Unicode character escape code");
    out += String.fromCodePoint(value);
    i += 2 + digits;
  }
  return out;
}

/** What Pulumi YAML makes of a string value: the text, or the first property access it starts. */
export function pulumiYamlValue(value: string): { text: string } | { reference: string } {
  let text = "";
  let i = 0;
  while (i < value.length) {
    if (value.startsWith("$$", i)) {
      text += "$";
      i += 2;
    } else if (value.startsWith("${", i)) {
      return { reference: value.slice(i, i + 40) };
    } else {
      text += value[i];
      i += 1;
    }
  }
  return { text };
}

/** One resource of a printed `resources:` block: its key and the two properties and import id. */
export interface YamlResource {
  key: string;
  comment: string;
  webhookName: string;
  webhookUrl: string;
  import: string;
}

/**
 * The resources of a `resources:` block as adopt prints it (the layout is adopt's own: key line,
 * type, properties, options), each value read as yaml.v3 and then Pulumi YAML read it. Throws on
 * anything that does not follow the layout, on a scalar yaml.v3 refuses, and on a value Pulumi YAML
 * would read as a reference.
 */
export function readAdoptYaml(text: string): YamlResource[] {
  const lines = text.split("\n");
  const start = lines.indexOf("resources:");
  if (start < 0) return [];
  const resources: YamlResource[] = [];
  const value = (line: string | undefined, prefix: string): string => {
    if (line === undefined || !line.startsWith(prefix))
      throw new Error(`expected ${JSON.stringify(prefix)}, got ${JSON.stringify(line)}`);
    const read = pulumiYamlValue(readYamlDoubleQuoted(line.slice(prefix.length)));
    if ("reference" in read)
      throw new Error(`Pulumi YAML reads a property access in ${JSON.stringify(line)}: ${read.reference}`);
    return read.text;
  };
  for (let i = start + 1; i < lines.length && lines[i]!.startsWith("  "); i += 7) {
    const keyLine = /^ {2}("(?:[^"\\]|\\.)*"): # (.*)$/.exec(lines[i]!);
    if (!keyLine) throw new Error(`expected a resource key, got ${JSON.stringify(lines[i])}`);
    if (
      lines[i + 1] !== "    type: webhooks:index:WebhookEndpoint" ||
      lines[i + 2] !== "    properties:" ||
      lines[i + 5] !== "    options:"
    ) {
      throw new Error(`unexpected layout at ${JSON.stringify(lines.slice(i, i + 7))}`);
    }
    resources.push({
      key: readYamlDoubleQuoted(keyLine[1]!),
      comment: keyLine[2]!,
      webhookName: value(lines[i + 3], "      webhookName: "),
      webhookUrl: value(lines[i + 4], "      webhookUrl: "),
      import: value(lines[i + 6], "      import: "),
    });
  }
  return resources;
}

/** One `new WebhookEndpoint(...)` of a TypeScript text, as the compiler parses it. */
export interface TsDeclaration {
  variable: string;
  resourceName: string;
  properties: Record<string, string | number>;
}

/**
 * Every `const x = new WebhookEndpoint("name", { ... })` in `source`, read with the TypeScript
 * compiler's parser: string literals by their `.text` (the value the compiler gives them), numbers
 * by value. Throws on syntax errors and on any property value that is not a plain literal.
 */
export function readTsDeclarations(source: string): TsDeclaration[] {
  const file = ts.createSourceFile("adopt.ts", source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const diagnostics = (file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
  if (diagnostics.length > 0)
    throw new Error(
      `TypeScript syntax errors: ${diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, " ")).join("; ")}`,
    );
  const found: TsDeclaration[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      node.initializer &&
      ts.isNewExpression(node.initializer) &&
      node.initializer.expression.getText(file) === "WebhookEndpoint"
    ) {
      const [nameArg, argsArg] = node.initializer.arguments ?? [];
      if (!nameArg || !ts.isStringLiteral(nameArg) || !argsArg || !ts.isObjectLiteralExpression(argsArg))
        throw new Error(`unexpected call ${node.initializer.getText(file)}`);
      const properties: Record<string, string | number> = {};
      for (const property of argsArg.properties) {
        if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name))
          throw new Error(`unexpected property ${property.getText(file)}`);
        const init = property.initializer;
        if (ts.isStringLiteral(init)) properties[property.name.text] = init.text;
        else if (ts.isNumericLiteral(init)) properties[property.name.text] = Number(init.text);
        else throw new Error(`not a literal: ${init.getText(file)}`);
      }
      found.push({ variable: node.name.getText(file), resourceName: nameArg.text, properties });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * The arguments of every `pulumi` (or other `command`) command in a shell script, as a real POSIX
 * shell (`sh`) parses them: the command is a shell function that prints its argument count and
 * arguments, NUL-separated.
 */
export function runShellCommands(script: string, command = "pulumi"): string[][] {
  const stub = `${command}() { printf '%s\\0' "$#" "$@"; }\n`;
  const out = execFileSync("sh", ["-c", stub + script], { encoding: "utf8" });
  const parts = out.split("\0");
  parts.pop();
  const calls: string[][] = [];
  for (let i = 0; i < parts.length;) {
    const count = Number(parts[i]);
    calls.push(parts.slice(i + 1, i + 1 + count));
    i += 1 + count;
  }
  return calls;
}
