#!/usr/bin/env node
// pulumi-resource-webhooks: the native provider plugin. The engine starts it with its own address
// as the last argument and reads the port of our gRPC server from the first line of stdout.
import { unsupportedNode } from "../text";

async function main(argv: readonly string[]): Promise<void> {
  // Before the server and its dependencies load: an old Node.js gets a sentence, not a TypeError.
  const tooOld = unsupportedNode(
    "pulumi-resource-webhooks (the npm-installed plugin)",
    ", or install the plugin archive, which needs no Node.js (docs/native-plugin.md)",
  );
  if (tooOld !== undefined) throw new Error(tooOld);
  const { serve } = await import("./server.js");
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
  process.stderr.write(
    `pulumi-resource-webhooks: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
