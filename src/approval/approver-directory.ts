import { createHash, timingSafeEqual } from "node:crypto";
import { DocketError } from "../errors/docket-error.js";
import { MIN_TOKEN_CHARS } from "../shared/token-strength.js";

/** One configured approver: their roles and, for remote use, how their token is checked. */
export interface ApproverEntry {
  readonly roles: readonly string[];
  /** Hex SHA-256 of the bearer token, from the config or read from `token_env`. */
  readonly tokenSha256?: string;
}

/** Who may decide, by name. Built from docket.yaml's `approvers:` section. */
export interface ApproverDirectory {
  readonly entries: ReadonlyMap<string, ApproverEntry>;
}

/** The result of checking who is deciding. */
export type Authentication =
  | { readonly status: "authenticated"; readonly name: string; readonly locallyAsserted: boolean }
  | { readonly status: "rejected"; readonly message: string };

/** Raw config shape for one approver. */
export interface ApproverConfig {
  readonly roles?: readonly string[];
  readonly token_env?: string;
  readonly token_sha256?: string;
}

/**
 * SHA-256 of a token, hex encoded: tokens are only ever stored and compared as hashes.
 *
 * @example
 * ```ts
 * hashToken("s3cret"); // "…64 hex characters…"
 * ```
 */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/**
 * Build the directory from config. `token_env` names an environment variable holding the token
 * itself; it is hashed at once and the plain value is not kept.
 *
 * @example
 * ```ts
 * const directory = createApproverDirectory({ alice: { roles: ["lead"] }, bob: { roles: ["lead"], token_env: "BOB_TOKEN" } });
 * ```
 */
export function createApproverDirectory(
  config: Readonly<Record<string, ApproverConfig>> = {},
  env: NodeJS.ProcessEnv = process.env,
): ApproverDirectory {
  const entries = new Map<string, ApproverEntry>();
  for (const [name, entry] of Object.entries(config)) {
    let tokenSha256 = entry.token_sha256?.toLowerCase();
    if (tokenSha256 !== undefined && !/^[0-9a-f]{64}$/.test(tokenSha256)) {
      throw new DocketError(
        "config_invalid",
        `approvers.${name}.token_sha256 must be 64 hex characters (a SHA-256).`,
      );
    }
    if (entry.token_env !== undefined) {
      const token = env[entry.token_env];
      if (!token) {
        throw new DocketError(
          "config_invalid",
          `approvers.${name}.token_env names ${entry.token_env}, which is not set: without it ${name} could not be authenticated.`,
        );
      }
      if (token.length < MIN_TOKEN_CHARS) {
        throw new DocketError(
          "config_invalid",
          `approvers.${name}.token_env names ${entry.token_env}, which holds ${token.length} characters: a token needs at least ${MIN_TOKEN_CHARS} (about 128 bits). Make one with: docket token`,
        );
      }
      tokenSha256 = hashToken(token);
    }
    entries.set(name, { roles: [...(entry.roles ?? [])], ...(tokenSha256 ? { tokenSha256 } : {}) });
  }
  return { entries };
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Establish who is deciding. With a token: it must hash to a configured approver's token (the
 * name, when given, must agree). Without one: accepted only for an approver configured without a
 * token (a single-user machine), and marked as locally asserted. No anonymous decisions.
 *
 * @example
 * ```ts
 * declare const directory: ApproverDirectory;
 * authenticate(directory, { name: "alice" }); // { status: "authenticated", name: "alice", locallyAsserted: true }
 * authenticate(directory, { token: "…" });    // finds bob by his token
 * ```
 */
export function authenticate(
  directory: ApproverDirectory,
  claim: { name?: string; token?: string },
): Authentication {
  if (claim.token !== undefined && claim.token !== "") {
    const hash = hashToken(claim.token);
    for (const [name, entry] of directory.entries) {
      if (entry.tokenSha256 && sameHash(entry.tokenSha256, hash)) {
        if (claim.name !== undefined && claim.name !== name) {
          return { status: "rejected", message: `The token does not belong to ${claim.name}.` };
        }
        return { status: "authenticated", name, locallyAsserted: false };
      }
    }
    return { status: "rejected", message: "The token matches no configured approver." };
  }
  if (claim.name === undefined || claim.name === "") {
    return {
      status: "rejected",
      message: "Say who is deciding (--as NAME, or a bearer token): decisions are never anonymous.",
    };
  }
  const entry = directory.entries.get(claim.name);
  if (!entry) return { status: "rejected", message: `${claim.name} is not a configured approver.` };
  if (entry.tokenSha256) {
    return {
      status: "rejected",
      message: `${claim.name} has a token: give it (DOCKET_TOKEN or the prompt) to decide.`,
    };
  }
  return { status: "authenticated", name: claim.name, locallyAsserted: true };
}

/**
 * Whether `name` is in an allowed set of principals and roles (`alice`, `role:lead`).
 *
 * @example
 * ```ts
 * declare const directory: ApproverDirectory;
 * mayDecide(directory, "alice", ["role:lead"]); // true when alice has the lead role
 * ```
 */
export function mayDecide(
  directory: ApproverDirectory,
  name: string,
  allowed: readonly string[],
): boolean {
  const roles = directory.entries.get(name)?.roles ?? [];
  return allowed.some((who) =>
    who.startsWith("role:") ? roles.includes(who.slice(5)) : who === name,
  );
}
