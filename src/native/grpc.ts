import { createRequire } from "node:module";
import type * as grpcJs from "@grpc/grpc-js";

/**
 * The gRPC pieces of the native plugin, taken from the very copy of @pulumi/pulumi that the
 * package depends on: its generated protocol stubs, and the @grpc/grpc-js and google-protobuf
 * they were generated against (one copy of each, whatever the package manager hoisted).
 */
const pulumiRequire = createRequire(require.resolve("@pulumi/pulumi/package.json"));

/* eslint-disable @typescript-eslint/no-unsafe-assignment */
export const grpc: typeof grpcJs = pulumiRequire("@grpc/grpc-js");
export const structpb: StructModule = pulumiRequire("google-protobuf/google/protobuf/struct_pb");
export const emptypb: { Empty: new () => unknown } = pulumiRequire("google-protobuf/google/protobuf/empty_pb");
export const anypb: { Any: new () => AnyMessage } = pulumiRequire("google-protobuf/google/protobuf/any_pb");
export const providerRpc: { ResourceProviderService: grpcJs.ServiceDefinition } = pulumiRequire("@pulumi/pulumi/proto/provider_grpc_pb");
export const engineRpc: { EngineClient: new (address: string, credentials: grpcJs.ChannelCredentials) => EngineClient } =
  pulumiRequire("@pulumi/pulumi/proto/engine_grpc_pb");
export const providerPb: ProviderPb = pulumiRequire("@pulumi/pulumi/proto/provider_pb");
export const pluginPb: { PluginInfo: new () => { setVersion(version: string): void } } = pulumiRequire("@pulumi/pulumi/proto/plugin_pb");
export const enginePb: { LogRequest: new () => LogRequest } = pulumiRequire("@pulumi/pulumi/proto/engine_pb");
export const statusPb: { Status: new () => StatusMessage } = pulumiRequire("@pulumi/pulumi/proto/status_pb");
/* eslint-enable @typescript-eslint/no-unsafe-assignment */

/** google.protobuf.Struct, as the generated JavaScript offers it. */
export interface StructMessage {
  toJavaScript(): Record<string, unknown>;
}
interface StructModule {
  Struct: { fromJavaScript(value: Record<string, unknown>): StructMessage };
}
interface AnyMessage {
  pack(serialized: Uint8Array, name: string): void;
}
interface StatusMessage {
  setCode(code: number): void;
  setMessage(message: string): void;
  addDetails(detail: AnyMessage): void;
  serializeBinary(): Uint8Array;
}
export interface LogRequest {
  setSeverity(severity: number): void;
  setMessage(message: string): void;
  setUrn(urn: string): void;
}
export interface EngineClient {
  log(request: LogRequest, callback: (error: Error | null) => void): void;
  close(): void;
}

/** The request and response messages the plugin uses (getters and setters of the generated classes). */
/* eslint-disable @typescript-eslint/no-explicit-any */
export interface ProviderPb {
  ProviderHandshakeResponse: new () => any;
  GetSchemaResponse: new () => any;
  CheckResponse: new () => any;
  CheckFailure: new () => any;
  DiffResponse: new () => any;
  ConfigureResponse: new () => any;
  CreateResponse: new () => any;
  ReadResponse: new () => any;
  UpdateResponse: new () => any;
  ErrorResourceInitFailed: new () => any;
}
/* eslint-enable @typescript-eslint/no-explicit-any */
