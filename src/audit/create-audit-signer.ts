import * as crypto from "node:crypto";
import type { AttestationSigner } from "../store/audit-attestation.js";
import { type AuditPaths, loadAuditKey, resolveAuditPaths } from "./audit-key.js";
import { type DigestLog, openDigestLog } from "./digest-log.js";

/** A signer with what it was built from. */
export interface AuditSigner extends AttestationSigner {
  readonly paths: AuditPaths;
  readonly publicKeyPem: string;
  readonly digests: DigestLog;
  close(): Promise<void>;
}

/**
 * The signer docket runs with: the Ed25519 key (created on first use, mode 0600) and the digest
 * log. Without options it finds them as the `docket` command does (`DOCKET_AUDIT_KEY`, else
 * `$XDG_CONFIG_HOME/docket/audit-key.pem`, the digest log beside it), so a store a library
 * writes passes `docket audit verify` like the CLI's. Give it to `openStore(url, { signer })`;
 * close it after the store.
 *
 * @example
 * ```ts
 * const signer = await createAuditSigner();
 * import { openStore } from "../store/open-store.js";
 * const store = await openStore("sqlite:.docket/docket.db", { signer });
 * // ... createHarness({ store, ... }) ...
 * await store.close();
 * await signer.close();
 * ```
 */
export async function createAuditSigner({
  keyFile,
  digests,
  env = process.env,
  create = true,
}: {
  keyFile?: string | undefined;
  digests?: string | undefined;
  env?: NodeJS.ProcessEnv;
  create?: boolean;
} = {}): Promise<AuditSigner> {
  const paths = resolveAuditPaths({
    ...(keyFile ? { keyFile } : {}),
    ...(digests ? { digests } : {}),
    env,
  });
  const key = loadAuditKey(paths.keyFile, { create });
  const log = await openDigestLog(paths.digests);
  return {
    paths,
    keyId: key.keyId,
    publicKeyPem: key.publicKeyPem,
    digests: log,
    sign: (body) => crypto.sign(null, Buffer.from(body), key.privateKey).toString("base64"),
    deliver: (attestations) => log.deliver(attestations),
    delivered: async (storeId) =>
      new Set((await log.read(storeId)).attestations.map((attestation) => attestation.hash)),
    close: () => log.close(),
  };
}
