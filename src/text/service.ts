/**
 * The service a base URL names, in one form: scheme and host lower-cased, a default port and
 * trailing slashes dropped. What state records as an endpoint's service (never the token), what
 * `webhooks recover` and `orphans` compare, and one of the forms a secret base URL is redacted in.
 */
export function serviceOf(baseUrl: string): string {
  let service = SERVICES.get(baseUrl);
  if (service === undefined) {
    const trimmed = baseUrl.trim();
    try {
      const url = new URL(trimmed);
      service = `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
    } catch {
      service = trimmed.replace(/\/+$/, "");
    }
    if (SERVICES.size >= MAX_SERVICES) SERVICES.clear();
    SERVICES.set(baseUrl, service);
  }
  return service;
}

/**
 * Base URLs already parsed: a provider asks on every read and diff which service its connection and
 * each secret value name (a URL parse each, 2,000 and more in a refresh of 1,000 endpoints).
 */
const SERVICES = new Map<string, string>();
const MAX_SERVICES = 1_024;
