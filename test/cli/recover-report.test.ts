// What recover prints for a pending create whose name or URL the state holds secret: `[secret]`, not
// an empty cell that reads as "no name".
import { describe, expect, it } from "vitest";
import { memorySink } from "../../src/cli/output/output";
import { printReport, type RecoverReport } from "../../src/cli/commands/recover-report";

describe("recover's report", () => {
  it("shows a name or URL the state holds secret as [secret] in every section", () => {
    const entry = {
      urn: "urn:pulumi:dev::shop::webhooks:index:WebhookEndpoint::orders",
      resourceName: "orders",
    };
    const report: RecoverReport = {
      stack: "dev",
      project: "shop",
      pendingCreates: 3,
      window: null,
      services: [],
      lock: null,
      providers: [],
      recorded: [{ ...entry, webhookId: 4, createTime: 1_767_323_045_000, how: "created" }],
      cleared: [{ ...entry, webhookName: undefined, reason: "never reached the service" }],
      ambiguous: [{ ...entry, reason: "two candidates", candidates: [] }],
      droppedOperations: 0,
      repaired: null,
      dryRun: false,
      changed: true,
    };
    const sink = memorySink();
    printReport(sink, report, false);
    expect(sink.out).toContain("orders ([secret], [secret]): two candidates");
    expect(sink.out.split("\n").filter((line) => line.includes("[secret]")).length).toBeGreaterThanOrEqual(3);
  });
});
