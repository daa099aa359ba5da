/**
 * The service a base URL names, in one form: scheme and host lower-cased, a default port and
 * trailing slashes dropped. What state records as an endpoint's service (never the token), what
 * `webhooks recover` and `orphans` compare, and one of the forms a secret base URL is redacted in.
 */
export function serviceOf(baseUrl: string): string {
  const trimmed = baseUrl.trim();
  try {
    const url = new URL(trimmed);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
  } catch {
    return trimmed.replace(/\/+$/, "");
  }
}
