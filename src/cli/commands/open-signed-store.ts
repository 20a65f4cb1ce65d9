import { type AuditSigner, createAuditSigner } from "../../audit/create-audit-signer.js";
import { type OpenStoreOptions, openStore } from "../../store/open-store.js";
import type { Store } from "../../store/store.js";

/** A store that signs what it writes, with the signer to close after it. */
export interface SignedStore {
  readonly store: Store;
  readonly signer: AuditSigner;
  /** Close the store (its last attestation), then the digest log. */
  close(): Promise<void>;
}

/**
 * Open a store for a command that writes to it (serve, approvals): with the configured audit
 * key and digest log, like `docket run`, so that every decision it records is signed at the
 * usual cadence and when it stops, not left as an unsigned tail.
 *
 * @example
 * ```ts
 * import { loadCliConfig } from "../load-cli-config.js";
 * const cli = loadCliConfig({ config: "docket.yaml" });
 * const { store, close } = await openSignedStore(cli.storeUrl, cli.runtime.audit, { recover: false });
 * ```
 */
export async function openSignedStore(
  url: string,
  audit: { readonly keyFile?: string | undefined; readonly digests?: string | undefined },
  options: Omit<OpenStoreOptions, "signer"> = {},
): Promise<SignedStore> {
  const signer = await createAuditSigner(audit);
  let store: Store;
  try {
    store = await openStore(url, { ...options, signer });
  } catch (error) {
    await signer.close().catch(() => undefined);
    throw error;
  }
  return {
    store,
    signer,
    close: async () => {
      try {
        await store.close();
      } finally {
        await signer.close();
      }
    },
  };
}
