/**
 * A word a POSIX shell (and bash or zsh) reads back as exactly `text`: as it is when it holds only
 * characters no shell treats specially (and does not start with `=`, which zsh expands), else in
 * single quotes, each `'` written as `'\''`. No shell word can hold NUL: callers must not pass one
 * (what we quote is refused before it gets here if it holds a control character: a resource name
 * by adopt, a webhookName by `check`).
 */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_.:/@%+-][A-Za-z0-9_.:/@%+=-]*$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
