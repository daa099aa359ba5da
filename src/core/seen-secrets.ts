import { HeldSecrets, foldedSecret, recognisableInText } from "../text";

/**
 * Most secret values one provider process remembers (each resource adds its signing secret and its
 * secret inputs): past this, the oldest are forgotten (docs/reliability.md). Found through an index
 * (HeldSecrets), so a read's cost does not grow with it.
 */
export const MAX_SEEN = 100_000;
const NUMBER = /^\d+(?:\.\d+)?$/;

/**
 * The secret values a provider process has been shown by its calls so far: every resource's secret
 * inputs and its endpoint's signing secret. The engine shows a provider one resource at a time, so a
 * secret of one resource that a service echoes in another endpoint's name, URL or error would
 * otherwise be shown by that other resource's call. What was not yet shown (a resource whose call
 * comes later in the run, one outside the run, as in `pulumi import`) cannot be known here;
 * `webhooks` in the project reads the whole stack (docs/reliability.md, "What this cannot prevent").
 *
 * Looked for as a person would copy it: in any letter case, escaped or not. Numbers are left to the call that holds
 * them (a secret setting's number redacts only where that call stands), and a value too short to be
 * recognised inside text (MIN_SECRET_CHARS) is not kept.
 */
export class SeenSecrets {
  /** Folded form (src/text/reading.ts, foldedSecret) -> the value, oldest first. */
  readonly #values = new Map<string, string>();
  /** The same, indexed for {@link in}: a read's cost follows its text, not how many values are kept. */
  readonly #held = new HeldSecrets<string>();
  /** The values as given, already remembered: each call shows the process its own again. */
  readonly #shown = new Set<string>();

  remember(values: Iterable<unknown>): void {
    for (const value of values) {
      if (typeof value !== "string" || this.#shown.has(value)) continue;
      if (!recognisableInText(value) || NUMBER.test(value.trim())) continue;
      this.#shown.add(value);
      const key = foldedSecret(value);
      if (this.#values.has(key)) continue;
      if (this.#values.size >= MAX_SEEN) {
        const oldest = this.#values.keys().next().value!;
        this.#values.delete(oldest);
        this.#held.delete(oldest);
        this.#shown.clear();
      }
      this.#values.set(key, value);
      this.#held.set(key, value);
    }
  }

  /**
   * The remembered values `text` may hold, in any letter case, as it is or as a reader decodes it
   * (escapes, hidden characters and their escapes: src/text/reading.ts): the few to redact from it
   * or refuse it for, which the text policy then finds exactly.
   */
  in(text: string): string[] {
    return this.#held.in(text);
  }
}
