/**
 * The rules for an endpoint's name and URL, written once: what may be declared, which forms of a
 * URL or name are the same endpoint, and what "exact" means when matching what a service returns.
 *
 * A service may store a normalised form of what it was sent (lower-case scheme and host, a `/`
 * on an empty path, a trailing slash removed or added, surrounding white space trimmed). So:
 * - `check` only accepts forms that every reader stores the same way ({@link urlProblems},
 *   {@link nameProblems}), and says which form to declare instead;
 * - "the same URL" ({@link sameUrl}) and "the same name" ({@link sameName}) ignore exactly those
 *   normalisations; filters, drift detection and create's checks all use them;
 * - "may be the same endpoint" ({@link maySameEndpoint}) is looser still (names compared without
 *   case, URLs without case or trailing slashes): it is used only where a false match is the safe
 *   side, to refuse creating what may already exist and to refuse guessing after a lost answer.
 */
import { LOOKALIKE } from "../text";

export const MAX_NAME_LENGTH = 128;
export const MAX_URL_LENGTH = 2048;

// C0, DEL and C1 control characters.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
// Characters that are invisible or make a name look like another (src/text's LOOKALIKE): a name or
// URL holding one looks identical to one without it, in a terminal and in the service's console.
const INVISIBLE_CHARS = LOOKALIKE;

/**
 * Problems with a declared endpoint name; empty when it is acceptable. `what` names the property.
 * With `secret`, no message shows the value or any form of it (a program marked it secret).
 */
export function nameProblems(
  name: string,
  what = "webhookName",
  options: { secret?: boolean } = {},
): string[] {
  const show = (form: string) =>
    options.secret === true
      ? "its form without them (not shown: the value is a secret)"
      : JSON.stringify(form);
  const problems: string[] = [];
  if (name.trim() === "") {
    problems.push(`${what} is empty: give the endpoint a name`);
    return problems;
  }
  if ([...name].length > MAX_NAME_LENGTH)
    problems.push(`${what} is longer than ${MAX_NAME_LENGTH} characters: shorten it`);
  if (CONTROL_CHARS.test(name))
    problems.push(`${what} contains a control character (such as a newline or tab): remove it`);
  if (INVISIBLE_CHARS.test(name)) {
    problems.push(
      `${what} contains an invisible character (zero-width or bidirectional control): remove it; declare ${show(stripInvisible(name))}`,
    );
  }
  if (name !== name.trim())
    problems.push(
      `${what} starts or ends with white space: remove it, since a service may trim it and then compare names exactly`,
    );
  if (problems.length === 0 && name !== name.normalize("NFC")) {
    problems.push(
      `${what} is not in Unicode normal form C: declare ${options.secret === true ? "its NFC form (not shown: the value is a secret)" : JSON.stringify(name.normalize("NFC"))}, the form a service stores`,
    );
  }
  return problems;
}

/**
 * Problems with a declared endpoint URL; empty when it is acceptable. A URL is accepted when it is
 * in the canonical form every WHATWG-URL reader stores, up to the case of scheme and host, a
 * default port and a missing `/` on an empty path (forms {@link sameUrl} treats as the same).
 */
export function urlProblems(
  value: string,
  what = "webhookUrl",
  options: { secret?: boolean } = {},
): string[] {
  const problems: string[] = [];
  if ([...value].length > MAX_URL_LENGTH)
    problems.push(`${what} is longer than ${MAX_URL_LENGTH} characters: shorten it`);
  if (CONTROL_CHARS.test(value) || /\s/.test(value)) {
    problems.push(
      `${what} contains white space or a control character: remove it (percent-encode a space as %20)`,
    );
    return problems;
  }
  if (INVISIBLE_CHARS.test(value)) {
    problems.push(`${what} contains an invisible character (zero-width or bidirectional control): remove it`);
    return problems;
  }
  if (value.includes("\\")) {
    problems.push(
      `${what} contains a backslash, which URL readers turn into "/" or keep, differently: use "/" (or %5C for a literal backslash)`,
    );
    return problems;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(
      `${what} ${options.secret === true ? "" : `${JSON.stringify(value.slice(0, 100))} `}is not an absolute URL: use the form https://example.com/hooks/orders`,
    );
    return problems;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    problems.push(`${what} must use https:// or http://, not ${url.protocol}//`);
  }
  if (url.username !== "" || url.password !== "") {
    problems.push(
      `${what} contains credentials (user:password@): they would be stored in Pulumi state and returned by every list call; remove them and authenticate deliveries with signSecret instead`,
    );
  }
  if (url.hostname === "")
    problems.push(`${what} has no host: use the form https://example.com/hooks/orders`);
  if (value.includes("#"))
    problems.push(`${what} has a fragment (#...), which is never sent to the receiver: remove it`);
  if (problems.length > 0) return problems;
  const canonical = url.href;
  if (benignForm(value) !== canonical) {
    problems.push(
      `${what} is not in canonical form, so a service could store it differently from what you declare: declare ${options.secret === true ? "its canonical form (not shown: the value is a secret; scheme and host lower-case, no default port, no dot segments, percent-escapes as a URL parser writes them)" : JSON.stringify(canonical)} instead`,
    );
  }
  return problems;
}

/**
 * The URL with only the normalisations every reader agrees on applied by hand: scheme and host in
 * lower case, the default port dropped, `/` for an empty path. If that is the WHATWG form, the
 * declared URL differs from what a service stores in nothing but those.
 */
function benignForm(value: string): string {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)(.*)$/s.exec(value);
  if (!match) return value;
  const scheme = match[1]!.toLowerCase();
  let authority = match[2]!.toLowerCase();
  const rest = match[3]!;
  const defaultPort = scheme === "https" ? ":443" : scheme === "http" ? ":80" : "";
  if (defaultPort !== "" && authority.endsWith(defaultPort))
    authority = authority.slice(0, -defaultPort.length);
  return `${scheme}://${authority}${rest === "" || rest.startsWith("?") ? `/${rest}` : rest}`;
}

function stripInvisible(text: string): string {
  return text.replace(new RegExp(INVISIBLE_CHARS.source, "gu"), "");
}

/**
 * The comparison key of a URL: its WHATWG form, percent-escapes in upper case, one trailing slash
 * of the path removed. Undefined when the text is not an absolute URL.
 */
export function urlKey(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  // Percent-escapes in upper case, and those of unreserved characters decoded (RFC 3986, 6.2.2).
  const upper = (text: string) =>
    text.replace(/%[0-9a-fA-F]{2}/g, (escape) => decodeUnreserved(escape.toUpperCase()));
  const path = upper(url.pathname).replace(/\/$/, "");
  // Credentials and a fragment are part of the address: never equal to one without them.
  const userinfo = url.username === "" && url.password === "" ? "" : `${url.username}:${url.password}@`;
  return `${url.protocol}//${userinfo}${url.host}${path}${upper(url.search)}${url.hash}`;
}

/**
 * The forms a service may have stored a declared name under, to look it up by when its filter
 * compares stored values exactly: as declared first, then trimmed, NFC and lower-cased. A name
 * already in every one of those forms gives one lookup.
 */
export function nameLookupForms(name: string): string[] {
  const trimmed = name.trim().normalize("NFC");
  return [...new Set([name, trimmed, trimmed.toLowerCase()])];
}

/**
 * The forms a service may have stored a declared URL under (see {@link nameLookupForms}): as
 * declared, the WHATWG serialisation (lower-case scheme and host, "/" for an empty path), with and
 * without a trailing slash on the path, unreserved characters percent-decoded, all lower-cased.
 */
export function urlLookupForms(value: string): string[] {
  const forms = [value];
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    return forms;
  }
  const href = url.href;
  forms.push(href);
  if (url.search === "" && url.hash === "") {
    forms.push(href.endsWith("/") ? href.replace(/\/+$/, "") : `${href}/`);
  }
  forms.push(href.replace(/%[0-9a-fA-F]{2}/g, decodeUnreserved));
  forms.push(value.toLowerCase());
  return [...new Set(forms)];
}

/**
 * A percent-escape of an unreserved character (letter, digit, "-", ".", "_", "~") as that character; any
 * other unchanged.
 */
function decodeUnreserved(escape: string): string {
  const char = String.fromCharCode(parseInt(escape.slice(1), 16));
  return /^[A-Za-z0-9._~-]$/.test(char) ? char : escape;
}

/** The same URL, up to the normalisations a service may apply (see the module comment). */
export function sameUrl(a: string, b: string): boolean {
  if (a === b) return true;
  const left = urlKey(a);
  return left !== undefined && left === urlKey(b);
}

/** The same name, up to surrounding white space and Unicode normalisation a service may apply. */
export function sameName(a: string, b: string): boolean {
  return a === b || a.trim().normalize("NFC") === b.trim().normalize("NFC");
}

/** Name and URL of an endpoint, as declared or as a service returned them. */
export interface EndpointAddress {
  webhookName: string;
  webhookUrl: string;
}

/** The same name and the same URL. */
export function sameEndpoint(a: EndpointAddress, b: EndpointAddress): boolean {
  return sameName(a.webhookName, b.webhookName) && sameUrl(a.webhookUrl, b.webhookUrl);
}

/**
 * Could these be one endpoint that a service stored in another form? Looser than
 * {@link sameEndpoint}: names without case or invisible characters, URLs without case or trailing
 * slashes. Used only where a false "yes" is the safe answer.
 */
export function maySameEndpoint(a: EndpointAddress, b: EndpointAddress): boolean {
  if (a.webhookName === b.webhookName && a.webhookUrl === b.webhookUrl) return true;
  return (
    looseNameKey(a.webhookName) === looseNameKey(b.webhookName) &&
    looseUrlKey(a.webhookUrl) === looseUrlKey(b.webhookUrl)
  );
}

/**
 * One key for every address {@link maySameEndpoint} takes for this one's: two addresses with the same
 * key may be one endpoint, so creates of them must not race.
 */
export function looseEndpointKey(address: EndpointAddress): string {
  return JSON.stringify([looseNameKey(address.webhookName), looseUrlKey(address.webhookUrl)]);
}

function looseNameKey(name: string): string {
  return stripInvisible(name).normalize("NFKC").trim().toLowerCase();
}

function looseUrlKey(url: string): string {
  return (
    (urlKey(url) ?? url.trim())
      .toLowerCase()
      .replace(/\/+(\?|$)/, "$1")
      // A host written as a fully qualified name (`h.example.`) is the same host.
      .replace(/^([a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?[^/?#:@]*?)\.(?=[:/?#]|$)/, "$1")
  );
}
