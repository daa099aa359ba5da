import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The server binaries of the newest PostgreSQL installed from Debian's packages. */
function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb")))
    : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest)
    throw new Error(
      "PostgreSQL server binaries not found under /usr/lib/postgresql: run `bash scripts/ensure-postgres.sh`",
    );
  return join(root, newest, "bin");
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * A throwaway PostgreSQL on a free loopback port in a temporary directory. As root, the server runs
 * as the `postgres` user (initdb refuses root).
 */
export async function startPostgres(): Promise<{ url: string; stop(): void }> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), "pwe-pg-"));
  const data = join(dir, "data");
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot)
    chownSync(
      dir,
      Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim()),
      Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim()),
    );
  const run = (args: string[]) => {
    const [command, ...rest] = asRoot ? ["runuser", "-u", "postgres", "--", ...args] : args;
    const result = spawnSync(command!, rest, { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr}${result.stdout}`);
  };
  run([join(bin, "initdb"), "-D", data, "-U", "pulumi", "--auth=trust", "-E", "UTF8"]);
  run([
    join(bin, "pg_ctl"),
    "-D",
    data,
    "-l",
    join(dir, "server.log"),
    "-w",
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    "start",
  ]);
  return {
    url: `postgres://pulumi@127.0.0.1:${port}/postgres?sslmode=disable`,
    stop() {
      try {
        run([join(bin, "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
