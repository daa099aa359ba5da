import { tierFromEnv } from "./tier.mjs";

/**
 * The seed of a property-based test. `npm test` runs the same cases on every machine (`fixed`), so
 * that a failure in CI is one a rerun reproduces and no run passes or fails by the draw; `npm run
 * test:deep` draws new cases each day (a seed from the date); `<variable>=<n>` replays or explores
 * one. fast-check names the seed of a failing run.
 */
export function propertySeed(variable: string, fixed: number): number {
  const given = process.env[variable];
  if (given !== undefined && given !== "") {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed)) throw new Error(`${variable} is "${given}": give an integer seed`);
    return seed;
  }
  if (tierFromEnv() === "deep") return Math.floor(Date.now() / 86_400_000);
  return fixed;
}
