import type { ApprovalRequest } from "./approval.js";

/** What "always allow" would do for a request, or why it is not offered. */
export type AlwaysAllowOffer =
  | {
      readonly status: "offered";
      /** What the rule allows, in words. */
      readonly covers: string;
      /** Where the rule would be written, e.g. `docket.yaml`. */
      readonly file: string;
      /** Write the rule (recorded as decided by `by`) and return its id. */
      readonly accept: (by: string) => Promise<string>;
    }
  | { readonly status: "not_offered"; readonly reason: string };

/**
 * Where the terminal approver gets "always allow" from: the CLI judges each request against the
 * policy files and writes the rule to the project's docket.yaml.
 *
 * @example
 * ```ts
 * const alwaysAllow: AlwaysAllowChannel = async () => ({ status: "not_offered", reason: "no docket.yaml" });
 * ```
 */
export type AlwaysAllowChannel = (request: ApprovalRequest) => Promise<AlwaysAllowOffer>;
