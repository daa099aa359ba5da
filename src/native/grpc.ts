import { createRequire } from "node:module";
import type * as grpcJs from "@grpc/grpc-js";
import type * as engineRpcTypes from "@pulumi/pulumi/proto/engine_grpc_pb";
import type * as enginePbTypes from "@pulumi/pulumi/proto/engine_pb";
import type * as pluginPbTypes from "@pulumi/pulumi/proto/plugin_pb";
import type * as providerPbTypes from "@pulumi/pulumi/proto/provider_pb";
import type * as statusPbTypes from "@pulumi/pulumi/proto/status_pb";
import type * as anyPbTypes from "google-protobuf/google/protobuf/any_pb";
import type * as emptyPbTypes from "google-protobuf/google/protobuf/empty_pb";
import type * as structPbTypes from "google-protobuf/google/protobuf/struct_pb";

/**
 * The gRPC pieces of the native plugin, taken from the very copy of @pulumi/pulumi that the
 * package depends on: its generated protocol stubs, and the @grpc/grpc-js and google-protobuf
 * they were generated against (one copy of each, whatever the package manager hoisted).
 */
const pulumiRequire = createRequire(require.resolve("@pulumi/pulumi/package.json"));

/* eslint-disable @typescript-eslint/no-unsafe-assignment */
export const grpc: typeof grpcJs = pulumiRequire("@grpc/grpc-js");
export const structpb: StructModule = pulumiRequire("google-protobuf/google/protobuf/struct_pb");
export const emptypb: typeof emptyPbTypes = pulumiRequire("google-protobuf/google/protobuf/empty_pb");
export const anypb: { Any: new () => AnyMessage } = pulumiRequire("google-protobuf/google/protobuf/any_pb");
export const providerRpc: { ResourceProviderService: grpcJs.ServiceDefinition } = pulumiRequire(
  "@pulumi/pulumi/proto/provider_grpc_pb",
);
export const engineRpc: {
  EngineClient: new (address: string, credentials: grpcJs.ChannelCredentials) => EngineClient;
} = pulumiRequire("@pulumi/pulumi/proto/engine_grpc_pb");
export const providerPb: ProviderPb = pulumiRequire("@pulumi/pulumi/proto/provider_pb");
export const pluginPb: typeof pluginPbTypes = pulumiRequire("@pulumi/pulumi/proto/plugin_pb");
export const enginePb: { LogRequest: new () => LogRequest } = pulumiRequire("@pulumi/pulumi/proto/engine_pb");
export const statusPb: { Status: new () => StatusMessage } = pulumiRequire("@pulumi/pulumi/proto/status_pb");
/* eslint-enable @typescript-eslint/no-unsafe-assignment */

/** The modules' types: the .d.ts files generated beside the stubs (and @types/google-protobuf's). */
type StructModule = typeof structPbTypes;
type AnyMessage = anyPbTypes.Any;
type StatusMessage = statusPbTypes.Status;
type LogRequest = enginePbTypes.LogRequest;
type EngineClient = engineRpcTypes.EngineClient;
type ProviderPb = typeof providerPbTypes;
