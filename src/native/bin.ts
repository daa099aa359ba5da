#!/usr/bin/env node
// pulumi-resource-webhooks: the native provider plugin. The engine starts it with its own address
// as the last argument and reads the port of our gRPC server from the first line of stdout.
import { serve } from "./server";

async function main(argv: readonly string[]): Promise<void> {
  const engineAddress = [...argv].reverse().find((arg) => !arg.startsWith("-"));
  const server = await serve(engineAddress);
  process.stdout.write(`${server.port}\n`);
  const stop = () => {
    void server.close().finally(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`pulumi-resource-webhooks: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
