import { REPO } from "../../scripts/harness/repo.mjs";

export { REPO };
/**
 * E2E_DIR holds the run's pack, base project and backends; BASE_DIR holds node_modules with the packed
 * package installed, and projects below it.
 */
export { BASE_DIR, E2E_DIR, PACK_DIR } from "../../scripts/harness/e2e-base.mjs";
