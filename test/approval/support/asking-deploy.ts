import type { ApproverDirectory } from "../../../src/approval/approver-directory.js";
import { createDurableApprover } from "../../../src/approval/durable-approver.js";
import { createCheckpoint } from "../../../src/checkpoint/create-checkpoint.js";
import type { Store } from "../../../src/store/store.js";
import { defineTool } from "../../../src/tool/define-tool.js";

/**
 * A checkpoint whose one write tool, `deploy`, always asks, answered by a durable approver that
 * waits (polling every 5 ms) in `approverStore`; `ran` lists the calls its handler ran.
 *
 * @example
 * ```ts
 * declare const store: Store;
 * declare const directory: ApproverDirectory;
 * const { checkpoint, ran } = askingDeploy({ store, directory });
 * ```
 */
export function askingDeploy({
  store,
  directory,
  approverStore = store,
}: {
  store: Store;
  directory: ApproverDirectory;
  approverStore?: Store;
}) {
  const ran: string[] = [];
  const checkpoint = createCheckpoint({
    tools: [
      defineTool({
        name: "deploy",
        description: "Deploy.",
        input: { type: "object" },
        writes: true,
        handler: () => void ran.push("deploy"),
      }),
    ],
    store,
    policy: () => ({ decision: "ask", rule: "deploy-asks" }),
    approvals: createDurableApprover({ store: approverStore, directory, mode: "wait", pollMs: 5 }),
  });
  return { checkpoint, ran };
}
