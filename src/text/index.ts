/**
 * Text made safe to show or to paste: secrets redacted, text from the outside world cleaned and
 * capped, words quoted for a shell, and the policy for what of it may be shown, marked secret or
 * refused (./policy). The client, the core, the CLI and the faces all build such
 * text, so it lives here, apart from each of them; it depends on nothing else in this package.
 * Internal: not exported from the package's entry.
 */
export {
  MAX_MESSAGE_CHARS,
  MAX_QUOTED_CHARS,
  cleanServiceText,
  quoteServiceText,
  redact,
  rewriteField,
  sanitizeCause,
  secretForms,
  showable,
} from "./redact";
export { HIDDEN, HIDDEN_SOURCE, LOOKALIKE } from "./hidden";
export {
  MIN_SECRET_CHARS,
  SECRET_CELL,
  SECRET_MARKER,
  askedFor,
  holdsSecretShown,
  isSecretValue,
  pasteRefusal,
  recognisableInText,
  redactMessage,
  redactShown,
  showsSecret,
  shownValue,
  type SecretMarker,
  type ShownSecrets,
} from "./policy";
export {
  MAX_PASSES,
  MAX_PENDING,
  MAX_READINGS,
  NUMBER_SECRET_DIGITS,
  SEARCHED_CHARS,
  decodedReading,
  foldedSecret,
  HeldSecrets,
  mayHold,
} from "./reading";
export { MIN_NODE, unsupportedNode } from "./runtime";
export { serviceOf } from "./service";
export { shellQuote } from "./shell";
