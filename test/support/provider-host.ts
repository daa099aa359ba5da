import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { LINKED_DIR, REPO } from "./global-setup";

/* eslint-disable @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any */
// The generated gRPC stubs ship inside @pulumi/pulumi as untyped CommonJS.
const pulumiRequire = createRequire(join(REPO, "node_modules/@pulumi/pulumi/package.json"));
const grpc = pulumiRequire("@grpc/grpc-js");
const provrpc = pulumiRequire("./proto/provider_grpc_pb");
const provproto = pulumiRequire("./proto/provider_pb");
const structproto = pulumiRequire("google-protobuf/google/protobuf/struct_pb");
const emptyproto = pulumiRequire("google-protobuf/google/protobuf/empty_pb");

export interface HostOutput {
  stdout: string;
  stderr: string;
}

/**
 * The real dynamic-provider host (`@pulumi/pulumi/cmd/dynamic-provider`), spawned the way the
 * engine's `pulumi-resource-pulumi-nodejs` plugin spawns it, and driven over gRPC.
 */
export class ProviderHost {
  readonly output: HostOutput = { stdout: "", stderr: "" };
  private constructor(
    private readonly child: ChildProcess,
    private readonly client: any,
  ) {}

  static async start(
    env: Record<string, string> = {},
    entry = join(REPO, "node_modules/@pulumi/pulumi/cmd/dynamic-provider/index.js"),
  ): Promise<ProviderHost> {
    return ProviderHost.spawn(process.execPath, [entry], { ...process.env, ...env });
  }

  /**
   * A plugin executable started on its own, with exactly this environment (e.g. a PATH without node);
   * `wrapper` runs it (an emulator: qemu-aarch64-static -L <sysroot>), with `seconds` to print its port.
   */
  static startExecutable(
    executable: string,
    env: Record<string, string>,
    options: { wrapper?: readonly string[]; seconds?: number } = {},
  ): Promise<ProviderHost> {
    const [command, ...prefix] = [...(options.wrapper ?? []), executable];
    return ProviderHost.spawn(command, prefix, env, options.seconds);
  }

  private static async spawn(
    command: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    seconds = 30,
  ): Promise<ProviderHost> {
    // The engine address is required but unused by the host for these calls.
    const child = spawn(command, [...args, "127.0.0.1:1"], {
      cwd: LINKED_DIR,
      env: { ...env, PULUMI_PROJECT: "host-test", PULUMI_STACK: "dev" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output: HostOutput = { stdout: "", stderr: "" };
    child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`provider host did not print its port: ${output.stderr}`)),
        seconds * 1000,
      );
      child.stdout.on("data", (chunk: Buffer) => {
        output.stdout += chunk.toString();
        const first = output.stdout.split("\n")[0];
        if (output.stdout.includes("\n") && first && /^\d+$/.test(first.trim())) {
          clearTimeout(timer);
          resolve(Number(first.trim()));
        }
      });
      child.on("exit", (code) => reject(new Error(`provider host exited with ${code}: ${output.stderr}`)));
    });
    const client = new provrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const host = new ProviderHost(child, client);
    Object.assign(host.output, output);
    child.stdout.on("data", (chunk: Buffer) => (host.output.stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (host.output.stderr += chunk.toString()));
    return host;
  }

  private call<T>(method: string, request: unknown): Promise<T> {
    return new Promise((resolve, reject) => {
      this.client[method](request, (error: Error | null, response: T) =>
        error ? reject(error) : resolve(response),
      );
    });
  }

  /** The native plugin `pulumi-resource-webhooks` from the compiled package. */
  static startNative(env: Record<string, string> = {}): Promise<ProviderHost> {
    return ProviderHost.start(env, join(REPO, "dist/native/bin.js"));
  }

  async configure(
    config: Record<string, unknown>,
    variables: Record<string, string> = config as Record<string, string>,
  ): Promise<Record<string, unknown>> {
    const request = new provproto.ConfigureRequest();
    request.setArgs(structproto.Struct.fromJavaScript(config));
    const map = request.getVariablesMap();
    for (const [key, value] of Object.entries(variables)) map.set(key, value);
    const response: any = await this.call("configure", request);
    return { acceptSecrets: response.getAcceptsecrets(), supportsPreview: response.getSupportspreview() };
  }

  async checkConfig(news: object): Promise<{ property: string; reason: string }[]> {
    const request = new provproto.CheckRequest();
    request.setUrn("urn:pulumi:dev::host-test::pulumi:providers:webhooks::default");
    request.setOlds(structproto.Struct.fromJavaScript({}));
    request.setNews(structproto.Struct.fromJavaScript(news));
    const response: any = await this.call("checkConfig", request);
    return response.getFailuresList().map((f: any) => ({ property: f.getProperty(), reason: f.getReason() }));
  }

  async getSchema(): Promise<Record<string, unknown>> {
    const request = new provproto.GetSchemaRequest();
    const response: any = await this.call("getSchema", request);
    return JSON.parse(response.getSchema()) as Record<string, unknown>;
  }

  /** The version GetPluginInfo reports: the one the engine compares with what a program asks for. */
  async pluginVersion(): Promise<string> {
    const response: any = await this.call("getPluginInfo", new emptyproto.Empty());
    return response.getVersion();
  }

  /** Raw call for anything else; the error of a failed call is returned, not thrown. */
  async callRaw(method: string, request: unknown): Promise<{ error?: any; response?: any }> {
    try {
      return { response: await this.call(method, request) };
    } catch (error) {
      return { error };
    }
  }

  get protocol(): { provproto: any; structproto: any; grpc: any } {
    return { provproto, structproto, grpc };
  }

  async check(
    urn: string,
    olds: object,
    news: object,
  ): Promise<{ inputs: Record<string, unknown>; failures: { property: string; reason: string }[] }> {
    const request = new provproto.CheckRequest();
    request.setUrn(urn);
    request.setOlds(structproto.Struct.fromJavaScript(olds));
    request.setNews(structproto.Struct.fromJavaScript(news));
    const response: any = await this.call("check", request);
    return {
      inputs: response.getInputs().toJavaScript(),
      failures: response
        .getFailuresList()
        .map((f: any) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  async diff(
    id: string,
    urn: string,
    olds: object,
    news: object,
  ): Promise<{ changes: "none" | "some" | "unknown"; replaces: string[] }> {
    const request = new provproto.DiffRequest();
    request.setId(id);
    request.setUrn(urn);
    request.setOlds(structproto.Struct.fromJavaScript(olds));
    request.setNews(structproto.Struct.fromJavaScript(news));
    const response: any = await this.call("diff", request);
    const kinds = provproto.DiffResponse.DiffChanges;
    const changes =
      response.getChanges() === kinds.DIFF_SOME
        ? "some"
        : response.getChanges() === kinds.DIFF_NONE
          ? "none"
          : "unknown";
    return { changes, replaces: response.getReplacesList() };
  }

  async create(
    urn: string,
    properties: object,
  ): Promise<{ id: string; properties: Record<string, unknown> }> {
    const request = new provproto.CreateRequest();
    request.setUrn(urn);
    request.setProperties(structproto.Struct.fromJavaScript(properties));
    const response: any = await this.call("create", request);
    return { id: response.getId(), properties: response.getProperties().toJavaScript() };
  }

  async read(
    id: string,
    urn: string,
    properties: object,
  ): Promise<{
    id: string;
    properties: Record<string, unknown>;
    inputs: Record<string, unknown> | undefined;
  }> {
    const request = new provproto.ReadRequest();
    request.setId(id);
    request.setUrn(urn);
    request.setProperties(structproto.Struct.fromJavaScript(properties));
    const response: any = await this.call("read", request);
    return {
      id: response.getId(),
      properties: response.getProperties()?.toJavaScript() ?? {},
      inputs: response.getInputs()?.toJavaScript(),
    };
  }

  async update(id: string, urn: string, olds: object, news: object): Promise<Record<string, unknown>> {
    const request = new provproto.UpdateRequest();
    request.setId(id);
    request.setUrn(urn);
    request.setOlds(structproto.Struct.fromJavaScript(olds));
    request.setNews(structproto.Struct.fromJavaScript(news));
    const response: any = await this.call("update", request);
    return response.getProperties().toJavaScript();
  }

  async delete(id: string, urn: string, properties: object): Promise<void> {
    const request = new provproto.DeleteRequest();
    request.setId(id);
    request.setUrn(urn);
    request.setProperties(structproto.Struct.fromJavaScript(properties));
    await this.call("delete", request);
  }

  async stop(): Promise<void> {
    this.client.close();
    if (this.child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      this.child.once("exit", () => resolve());
      this.child.kill("SIGTERM");
    });
  }
}
