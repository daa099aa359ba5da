import { join } from "node:path";
import { REPO } from "../../scripts/harness/repo.mjs";

export { REPO };
export const E2E_DIR = join(REPO, ".e2e", "engine");
export const PACK_DIR = join(E2E_DIR, "pack");
/** Holds node_modules with the packed package installed; projects live below it. */
export const BASE_DIR = join(E2E_DIR, "base");
