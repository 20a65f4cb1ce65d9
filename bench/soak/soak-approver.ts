/**
 * The soak's approver, a process of its own: approves every pending request as alice, a lead,
 * until killed. Restarted by the soak when the database restart breaks its connection.
 *
 * Usage: soak-approver STORE_URL
 */
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { decideApproval } from "../../src/approval/decide-approval.js";
import { openStore } from "../../src/store/open-store.js";

const [url] = process.argv.slice(2);
if (!url) {
  process.stderr.write("usage: soak-approver STORE_URL\n");
  process.exit(2);
}
// As in the worker: a broken pool connection ends the process (issue 23, item 3), and the soak
// starts it again.
process.on("uncaughtException", (error) => {
  process.stderr.write(`approver crashed: ${String(error)}\n`);
  process.exit(3);
});
const store = await openStore(url);
const directory = createApproverDirectory({ alice: { roles: ["lead"] } }, {});
process.stdout.write("READY\n");
for (;;) {
  try {
    for (const pending of await store.listApprovals({ status: "pending" })) {
      const outcome = await decideApproval(store, directory, {
        approvalId: pending.id,
        decision: "approve",
        claim: { name: "alice" },
      });
      if (outcome.status === "decided") process.stdout.write("DECIDED\n");
    }
  } catch {
    // The database is away: try again.
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}
