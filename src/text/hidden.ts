// Characters a reader cannot see, written once for the CLI, both faces and the client: the CLI
// escapes them in what it prints, redaction looks through them for a secret split by them, and the
// client's rules refuse the look-alikes among them in a declared name or URL.

/**
 * Characters a terminal hides, reorders or draws like another one: C0 and C1 controls and DEL,
 * format characters (zero-width, bidirectional, the byte-order mark, tags), line and paragraph
 * separators, spaces other than U+0020, the other default-ignorable code points (variation
 * selectors, fillers), noncharacters (U+FFFE, U+FDD0, ...), lone surrogates, and the blank braille
 * pattern (U+2800), which draws as a space.
 */
export const HIDDEN_SOURCE = String.raw`[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Noncharacter_Code_Point}\p{Default_Ignorable_Code_Point}\u2800]|(?! )\p{Zs}`;

/** Every hidden character of a text. */
export const HIDDEN = new RegExp(HIDDEN_SOURCE, "gu");

/**
 * Selectors that change how an emoji or an ideograph is drawn (U+FE00 to U+FE0F, U+E0100 to
 * U+E01EF), never which character a reader sees: a name such as "alerts ❤️" keeps its U+FE0F.
 */
const PRESENTATION_SELECTORS = String.raw`[\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}]`;

/**
 * The hidden characters that make a declared name or URL look like another one, refused by the
 * client's rules: the hidden ones except controls (refused apart, in their own words), spaces
 * (white space has its own rules: a space inside a name is what the user wrote, ideographic ones
 * included) and the presentation selectors.
 */
export const LOOKALIKE = new RegExp(
  String.raw`(?!${PRESENTATION_SELECTORS}|\p{Cc}|\p{Zs})(?:${HIDDEN_SOURCE})`,
  "u",
);
