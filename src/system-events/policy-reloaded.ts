import type { SystemEventData } from "./system-event.js";
import { defineSystemEvent } from "./system-event-kind.js";

/** One policy source file and the SHA-256 of the bytes docket read from it. */
export interface PolicyFileHash {
  readonly [key: string]: SystemEventData;
  readonly path: string;
  readonly sha256: string;
}

/** What a reload did: the new policy took over, or the old one was kept and why. */
export type PolicyReloadedData =
  | {
      readonly [key: string]: SystemEventData;
      readonly status: "reloaded";
      readonly files: readonly PolicyFileHash[];
    }
  | {
      readonly [key: string]: SystemEventData;
      readonly status: "kept";
      readonly files: readonly PolicyFileHash[];
      /** Why the new files did not load: file, line and reason. */
      readonly reason: string;
    };

const isFileHash = (value: SystemEventData): boolean =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  typeof (value as Record<string, unknown>).path === "string" &&
  typeof (value as Record<string, unknown>).sha256 === "string";

/**
 * `policy_reloaded`: docket.yaml or a policy file changed while docket ran. `reloaded` names the
 * hashes of the files now in force; `kept` names the files that did not load and why, the old
 * policy still deciding.
 *
 * @example
 * ```ts
 * import { openStore } from "docket";
 * const store = await openStore(":memory:");
 * await store.emit(policyReloaded.event({ status: "reloaded", files: [{ path: "/p/docket.yaml", sha256: "ab…" }] }));
 * ```
 */
export const policyReloaded = defineSystemEvent<PolicyReloadedData>({
  kind: "policy_reloaded",
  isData: (data): data is PolicyReloadedData => {
    if (typeof data !== "object" || data === null || Array.isArray(data)) return false;
    const record = data as Record<string, SystemEventData>;
    const files = record.files;
    if (!Array.isArray(files) || !files.every(isFileHash)) return false;
    return (
      record.status === "reloaded" ||
      (record.status === "kept" && typeof record.reason === "string")
    );
  },
  summary: (data) => {
    const files = data.files.map((file) => `${file.path} (sha256 ${file.sha256.slice(0, 12)})`);
    switch (data.status) {
      case "reloaded":
        return `policy reloaded from ${files.join(", ") || "no files"}`;
      case "kept":
        return `policy kept: the new files did not load (${data.reason}); read ${files.join(", ") || "no files"}`;
    }
  },
});
