import type { NetworkConnection } from "../../../src/sandbox/network/network-connection.js";
import { readNetworkConnection } from "../../../src/sandbox/network/read-network-connection.js";
import type { Approval } from "../../../src/store/approval-record.js";
import type { Store } from "../../../src/store/store.js";

/** The sandbox network connections the store's trail records for a call (or a session). */
export async function trailConnections(
  store: Store,
  filter: { readonly sessionId?: string; readonly callId?: string },
): Promise<(NetworkConnection & { server?: string })[]> {
  return (await store.listEvents(filter)).flatMap((record) => {
    const connection = readNetworkConnection(record.event as { type: string });
    return connection ? [connection] : [];
  });
}

/** The store's pending approvals, once there is at least one (polled; empty after 30 s). */
export async function pendingApprovals(store: Store): Promise<Approval[]> {
  for (let i = 0; i < 600; i += 1) {
    const pending = await store.listApprovals({ status: "pending" });
    if (pending.length > 0) return pending;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return [];
}
