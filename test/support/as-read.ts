// How a person reads text that may be escaped, written from the formats, not from our code: a URL's
// reader decodes percent-escapes (again while they still decode, for a URL encoded twice), a page's
// reader decodes character references, a JSON reader its `\u` escapes; and no reader sees the
// characters that render as nothing. A secret is shown when it is in the text so read.

/** Characters a person does not see: controls, format characters, separators, default-ignorables. */
const UNSEEN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Noncharacter_Code_Point}\p{Default_Ignorable_Code_Point}\u2800]|(?! )\p{Zs}/gu;

/** The named references of the HTML standard's table that the tests write. */
const NAMED: Record<string, string> = {
  ZeroWidthSpace: "\u200b",
  shy: "\u00ad",
  zwj: "\u200d",
  NoBreak: "\u2060",
  amp: "&",
  percnt: "%",
  fjlig: "fj",
  ThickSpace: "\u205f\u200a",
  // Letters a URL's parser maps to plain ones (NFKC): a ligature, double-struck italic e and d.
  fflig: "\ufb00",
  ee: "\u2147",
  dd: "\u2146",
};

/** A reader of one format: what it decodes. */
type Reader = (text: string) => string;

/** A URL's reader: percent-escapes. */
const url: Reader = (text) => {
  try {
    return decodeURIComponent(text);
  } catch {
    // Not a whole URL component: its escapes one by one, and bytes that make no UTF-8 character as
    // their Latin-1 characters, as JavaScript's `unescape` and a page shown in Latin-1 read them.
    return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return unescape(run);
      }
    });
  }
};

/** A page's reader: character references. */
const page: Reader = (text) =>
  text
    .replace(/&#x([0-9a-f]+);?/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#([0-9]+);?/g, (_m, dec: string) => String.fromCodePoint(Number(dec)))
    // The double-struck small letters (U+1D552 on, no gaps): `&fopf;` is 𝕗.
    .replace(/&([a-z])opf;/g, (_m, letter: string) =>
      String.fromCodePoint(0x1d552 + letter.charCodeAt(0) - 97),
    )
    .replace(/&([A-Za-z]+);/g, (whole, name: string) => NAMED[name] ?? whole)
    // The legacy names a page's reader takes without their `;`, whatever follows.
    .replace(/&(shy|amp)(?!;)/g, (_m, name: string) => NAMED[name]!);

/** A JSON or source code reader: its backslash escapes. */
const source: Reader = (text) =>
  text
    .replace(/\\u\{([0-9a-f]+)\}/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/\\u([0-9a-f]{4})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    // Bytes, and source code's octal escapes; JavaScript's identity escapes (`\\Z` is Z; `\\x` and
    // `\\u` without their digits are no escape, but an error), of an astral letter too, and its line
    // continuations.
    .replace(BYTE_RUNS, bytesRead)
    .replace(/\\(?![xuU])([A-Za-z_-]|[\u{10000}-\u{10ffff}])/gu, "$1")
    .replace(/\\(?:\r\n|[\n\r\u2028\u2029])/g, "");

/** A run of bytes written as `\\xHH` or octal escapes. */
const BYTE_RUNS = /(?:\\x[0-9a-f]{2}|\\[0-7]{3})+/gi;

/** A run of escaped bytes as a reader of bytes makes it: UTF-8 where it is, each byte as Latin-1 where not. */
function bytesRead(run: string): string {
  const bytes = [...run.matchAll(/\\x([0-9a-f]{2})|\\([0-7]{3})/gi)].map(([, hex, octal]) =>
    hex !== undefined ? parseInt(hex, 16) : parseInt(octal!, 8),
  );
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return String.fromCharCode(...bytes);
  }
}

/** A browser: markup between two letters. */
const markup: Reader = (text) =>
  text
    // A comment inside a template: the template's content is markup.
    .replace(/<template>((?:(?!<\/?template)[^])*?)<!--[^]*?-->((?:(?!<\/?template)[^])*?)<\/template>/gi, "")
    // A script's escaped content holding a script's tags: one script to the tokenizer.
    .replace(
      /<script(?=[\t\n\f\r />])[^>]*><!--<script(?=[\t\n\f\r />])[^]*?<\/script[^>]*>[^]*?<\/script[^>]*>/gi,
      "",
    )
    // An element whose content a page does not show, with its tags; templates nest.
    .replace(
      /<template(?=[\t\n\f\r />])[^>]*>(?:(?!<\/?template[\t\n\f\r />])[^])*<\/template(?=[\t\n\f\r />])[^>]*>/gi,
      "",
    )
    .replace(
      /<template(?=[\t\n\f\r />])[^>]*>(?:(?!<\/?template[\t\n\f\r />])[^])*<\/template(?=[\t\n\f\r />])[^>]*>/gi,
      "",
    )
    .replace(
      /<(script|style|title|template|noscript|noembed|noframes|iframe)(?=[\t\n\f\r />])[^>]*>[^]*?<\/\1(?=[\t\n\f\r />])[^>]*>/gi,
      "",
    )
    // What a browser renders as nothing between two letters (the HTML tokenizer's tags, comments,
    // abrupt and bogus comments); a compatibility character is mapped as a URL's parser maps it
    // (NFKC) at the end.
    .replace(
      // A quote opens an attribute's value only after its `=`; `</>` is nothing.
      /<!--(?:>|->|[^]*?--!?>)|<[?!][^>]*>|<\/>|<\/[^A-Za-z>][^>]*>|<\/?[A-Za-z](?:=\s*"[^"]*"|=\s*'[^']*'|[^>])*>/g,
      "",
    );

const READERS = [url, page, source, markup];

/** A reader of `\\u` escapes only, which leaves `\\x0c` as text (Java's properties, a "unicode unescape"). */
const unicodeOnly: Reader = (text) =>
  text
    .replace(/\\u\{([0-9a-f]+)\}/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/\\u([0-9a-f]{4})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** A reader of bytes' escapes only (`\\x`, octal), which leaves `\\u` as text (Python's bytes literals). */
const bytesOnly: Reader = (text) => text.replace(BYTE_RUNS, bytesRead);

/**
 * `text` decoded by `readers` in turn (all of them unless told), again while that changes it (a URL
 * written inside a page: `&#37;4E` is `%4E` to the page's reader, then `N` to the URL's), then
 * without what no one sees, in lower case.
 */
export function asRead(text: string, readers: readonly Reader[] = READERS): string {
  let out = text;
  for (let round = 0; round < 6; round++) {
    const next = readers.reduce((decoded, reader) => reader(decoded), out);
    if (next === out) break;
    out = next;
  }
  return visible(out);
}

/** `text` without what no one sees (dropped first: NFKC makes a space of some of it), in lower case. */
function visible(text: string): string {
  return text.replace(UNSEEN, "").normalize("NFKC").toLowerCase();
}

/** Every sequence of distinct readers of `from`, at most `longest` of them, the empty one included. */
function sequences(from: readonly Reader[], longest: number): Reader[][] {
  if (longest === 0) return [[]];
  return [
    [],
    ...from.flatMap((first, i) =>
      sequences(
        from.filter((_r, j) => j !== i),
        longest - 1,
      ).map((rest) => [first, ...rest]),
    ),
  ];
}

/** The four readers in every order, and up to three of them with the two of one escape family. */
const READER_SEQUENCES: Reader[][] = [
  ...sequences(READERS, READERS.length),
  ...sequences([...READERS, unicodeOnly, bytesOnly], 3).filter(
    (sequence) => sequence.includes(unicodeOnly) || sequence.includes(bytesOnly),
  ),
];

/**
 * Whether a person reads `secret` in `text`, in any letter case: as some readers decode it, each in
 * turn in some order, stopping after any of them (to a page's reader `%0c` is text, whose `c` a URL's reader would take for an
 * escape; a page then a URL reader decode `&#37;E2%80%8B`, which neither reads alone; a JSON then a
 * page reader `&#5\x35;`), or undecoded (only what no one sees dropped).
 */
export function readsSecret(text: string, secret: string): boolean {
  const wanted = secret.toLowerCase();
  const seen = (decoded: string) => visible(decoded).includes(wanted);
  return READER_SEQUENCES.some((readers) => {
    // What a person sees after any of the decodings too: a URL decoded once, then shown as a page.
    let out = text;
    if (seen(out)) return true;
    for (let round = 0; round < 6; round++) {
      const before = out;
      for (const reader of readers) {
        out = reader(out);
        if (seen(out)) return true;
      }
      if (out === before) break;
    }
    return false;
  });
}

const code = (text: string): number => text.codePointAt(0)!;
/** A printable ASCII character's full-width form (U+FF01 to U+FF5E). */
const fullWidth = (char: string): string =>
  char > " " && char <= "~" ? String.fromCodePoint(char.codePointAt(0)! + 0xfee0) : char;
const hex = (text: string): string => code(text).toString(16);
const dec = (text: string): string => String(code(text));
/** Where the first small letter after the eighth character is, if there is one. */
const letterAfterHead = (secret: string): number[] => {
  const at = secret.slice(8).search(/[a-z]/);
  return at < 0 ? [] : [8 + at];
};

/**
 * The spellings of `secret` split by an escaped hidden character, by each reader's escape, and of
 * its ninth character written in escapes a reader decodes (leading zeros, escapes in two layers).
 */
export function escapedSplits(secret: string): [string, string][] {
  const [head, tail] = [secret.slice(0, 8), secret.slice(8)];
  return [
    ["a URL's %E2%80%8B", `${head}%E2%80%8B${tail}`],
    ["a URL's escape encoded twice", `${head}%25E2%2580%258B${tail}`],
    ["a page's &#8203;", `${head}&#8203;${tail}`],
    ["a page's &#x200B;", `${head}&#x200B;${tail}`],
    ["a page's &ZeroWidthSpace;", `${head}&ZeroWidthSpace;${tail}`],
    ["a page's &shy;", `${head}&shy;${tail}`],
    ["JSON's \\u200b", `${head}\\u200b${tail}`],
    ["every character percent-escaped", [...secret].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("")],
    ["a page's &shy without its ; before a letter", `${head}&shy${tail}`],
    ["a reference with leading zeros", `${head}&#00000000${code(tail)};${tail.slice(1)}`],
    ["a hex reference with leading zeros", `${head}&#x0000000000${hex(tail)};${tail.slice(1)}`],
    ["a braced escape with leading zeros", `${head}\\u{00000000${hex(tail)}}${tail.slice(1)}`],
    ["a URL's escape inside a page's reference", `${head}&#37;${hex(tail)}${tail.slice(1)}`],
    ["a page's reference written in a URL's escapes", `${head}%26%23${code(tail)}%3B${tail.slice(1)}`],
    ["a page's &amp; before a reference", `${head}&amp;#${code(tail)};${tail.slice(1)}`],
    ["a page's &ThickSpace; (two characters no one sees)", `${head}&ThickSpace;${tail}`],
    // One kind's escape with a character written in another's: only a reader of both, in that order, decodes it.
    [
      "a reference whose last digit is a URL's escape",
      `${head}&#${dec(tail).slice(0, -1)}%3${dec(tail).slice(-1)};${tail.slice(1)}`,
    ],
    [
      "a reference whose last digit is a JSON escape",
      `${head}&#${dec(tail).slice(0, -1)}\\x3${dec(tail).slice(-1)};${tail.slice(1)}`,
    ],
    ["a reference whose ; is a URL's escape", `${head}&#${dec(tail)}%3b${tail.slice(1)}`],
    [
      "a JSON \\x escape whose x is a URL's escape",
      `${head}\\%78${hex(tail).padStart(2, "0")}${tail.slice(1)}`,
    ],
    [
      "a JSON \\x escape whose x is a page's reference",
      `${head}\\&#120;${hex(tail).padStart(2, "0")}${tail.slice(1)}`,
    ],
    ["a tag a browser renders as nothing", `${head}<wbr>${tail}`],
    ["a comment a browser renders as nothing", `${head}<!---->${tail}`],
    ["the blank braille pattern", `${head}\u2800${tail}`],
    ["an octal escape", `${head}\\${code(tail).toString(8).padStart(3, "0")}${tail.slice(1)}`],
    ["a long comment", `${head}<!--${"x".repeat(70)}-->${tail}`],
    ["an abrupt comment", `${head}<!-->${tail}`],
    ["a bogus comment", `${head}<?x?>${tail}`],
    ["a CDATA section, a bogus comment to a page", `${head}<![CDATA[]]>${tail}`],
    ["a custom element with a long name", `${head}<my-very-long-custom-element-name>${tail}`],
    ["an attribute holding >", `${head}<span title="a>b">${tail}`],
    // The HTML tokenizer takes a `<` inside a tag into its name.
    ["a tag whose name holds a <", `${head}<b<i>${tail}`],
    ["a tag whose attribute's name holds a quote", `${head}<b 'x>${tail}`],
    ["an end tag without a name, nothing to a page's reader", `${head}</>${tail}`],
    ["a tag whose name holds a quote after its =", `${head}<b="x>${tail}`],
    ["a tag whose unquoted value holds a quote", `${head}<b a=b"x>${tail}`],
    ["a comment closed by --!>", `${head}<!--x--!>${tail}`],
    ["a soft hyphen's Latin-1 byte, percent-escaped", `${head}%AD${tail}`],
    ["the content of a <style> element, which no page shows", `${head}<style>x</style>${tail}`],
    ["the content of a <title> element, which no page shows", `${head}<TITLE >x</title >${tail}`],
    [
      "a template holding a template, none of it shown",
      `${head}<template><template></template>x</template>${tail}`,
    ],
    [
      "a script whose escaped content holds a script, none of it shown",
      `${head}<script><!--<script></script>x</script>${tail}`,
    ],
    ["a template whose comment holds its end tag", `${head}<template><!--</template>-->x</template>${tail}`],
    ["a zero-width space's UTF-8 bytes in \\x escapes", `${head}\\xe2\\x80\\x8b${tail}`],
    ["a zero-width space's UTF-8 bytes in octal escapes", `${head}\\342\\200\\213${tail}`],
    ["full-width letters, as a URL's host parser maps them", [...secret].map((c) => fullWidth(c)).join("")],
    // A letter as the page's reference to its double-struck form, which NFKC maps back.
    ...letterAfterHead(secret).map((i): [string, string] => [
      "a letter as a page's double-struck letter (&fopf;)",
      `${secret.slice(0, i)}&${secret.charAt(i)}opf;${secret.slice(i + 1)}`,
    ]),
    // A first character a URL's or a source reader would take into an escape before it: to the
    // other readers, and to a person reading the text undecoded, it is the secret's.
    ...(/^[0-9a-f]/i.test(secret)
      ? ([
          ["after %0, split by a hidden character", `%0${head}\u{e0041}${tail}`],
          ["after %0, split by a page's &#x200B;", `%0${head}&#x200B;${tail}`],
          ["after \\x0, split by a URL's %E2%80%8B", `\\x0${head}%E2%80%8B${tail}`],
          // Split by an escape of one kind written in another: only a reader of both decodes it.
          ["after %0, split by a page's escape of a JSON escape", `%0${head}&#92;u200b${tail}`],
          ["after \\x0, split by a page's escape of a URL's", `\\x0${head}&#37;E2%80%8B${tail}`],
          ["after &#x0, split by a JSON escape of a URL's", `&#x0${head}\\x25E2%80%8B${tail}`],
          // `\\x0c` is text to a reader of `\\u` escapes only, which reads the split.
          ["after \\x0, split by a page's escape of a \\u escape", `\\x0${head}&#92;u200b${tail}`],
          // A full-width first letter is no hex digit to a URL's decoder, and a letter to the person.
          [
            "after %0, its first letter full-width, its last in a page's escape of a URL's",
            `%0${fullWidth(secret.charAt(0))}${secret.slice(1, -1)}&#37;${hex(secret.slice(-1))}`,
          ],
          // A URL decoded once leaves `%26#x0` text; decoded twice, a page's reader takes the letter.
          ["after a URL's escape of a page's &#x0, split the same way", `%2526#x0${head}%26#8203;${tail}`],
        ] as [string, string][])
      : []),
    ...(/^[nrtbfv]/i.test(secret)
      ? ([
          ["after a backslash, split by a URL's %E2%80%8B", `\\${head}%E2%80%8B${tail}`],
          ["after a backslash, split by a page's escape of a URL's", `\\${head}&#37;E2%80%8B${tail}`],
          ["after a URL's escape of a backslash, split the same way", `%255C${head}%5Cu00ad${tail}`],
        ] as [string, string][])
      : []),
    ...(/^[A-Za-z_-]/.test(tail) && !/^[nrtbfvuxU]/.test(tail)
      ? [["a JavaScript identity escape", `${head}\\${tail}`] as [string, string]]
      : []),
  ];
}
