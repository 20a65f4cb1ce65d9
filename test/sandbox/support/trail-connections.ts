import type { NetworkConnection } from "../../../src/sandbox/network/network-connection.js";
import { readNetworkConnection } from "../../../src/sandbox/network/read-network-connection.js";
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
