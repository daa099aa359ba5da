// The `rewrite` option: a service that normalises what it stores. Every rewrite is idempotent, so
// a client that sends back the stored form finds it unchanged, and list filters are rewritten the
// same way before they are compared with stored values.
import type { NameRewrite, ResolvedOptions, UrlRewrite } from "./options";

export function storedName(name: string, mode: NameRewrite): string {
  switch (mode) {
    case "none":
      return name;
    case "trim":
      return name.trim();
    case "lowercase":
      return name.toLowerCase();
  }
}

/** The stored form of a URL that passed validation (so `new URL` accepts it). */
export function storedUrl(url: string, mode: UrlRewrite): string {
  switch (mode) {
    case "none":
      return url;
    case "href":
      return new URL(url).href;
    case "lowercase":
      return url.toLowerCase();
    case "strip-trailing-slash":
      return url.replace(/\/+$/, "");
    case "add-trailing-slash":
      return url.endsWith("/") ? url : `${url}/`;
  }
}

/** A list filter in the stored form; a partial URL filter that is no URL stays as it is for `href`. */
export function filterForm(
  field: "webhook_name" | "webhook_url",
  filter: string,
  options: ResolvedOptions,
): string {
  if (filter === "") return filter;
  if (field === "webhook_name") return storedName(filter, options.rewrite.name);
  if (options.rewrite.url === "href" && !URL.canParse(filter)) return filter;
  return storedUrl(filter, options.rewrite.url);
}
