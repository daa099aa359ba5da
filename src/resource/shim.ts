import type * as dynamic from "@pulumi/pulumi/dynamic";

/**
 * The provider object Pulumi serializes into every resource's `__provider`. Each method requires
 * the installed package when it runs and captures nothing, so the stored text stays small, holds
 * no token, and a package upgrade reaches old resources on refresh and destroy.
 *
 * Method bodies must not reference anything outside themselves: the closure serializer would
 * inline it into state.
 */
/* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call */
export const providerShim: dynamic.ResourceProvider = {
  configure: (req) => require("pulumi-webhook-endpoints/provider").provider.configure(req),
  check: (olds, news) => require("pulumi-webhook-endpoints/provider").provider.check(olds, news),
  diff: (id, olds, news) => require("pulumi-webhook-endpoints/provider").provider.diff(id, olds, news),
  create: (inputs) => require("pulumi-webhook-endpoints/provider").provider.create(inputs),
  read: (id, props) => require("pulumi-webhook-endpoints/provider").provider.read(id, props),
  update: (id, olds, news) => require("pulumi-webhook-endpoints/provider").provider.update(id, olds, news),
  delete: (id, props) => require("pulumi-webhook-endpoints/provider").provider.delete(id, props),
};
