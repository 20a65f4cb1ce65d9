import type { Migration } from "./migration.js";

/**
 * Version 3 (version 2 is the signed trail's audit checkpoints, on another branch): what a
 * request's "approve for this session" covers. `grant_key` is the SHA-256 of the grant's scope
 * (tool, principal, session, the rules' votes, the argument values they judged); NULL means no
 * grant is offered, and so does every row written before this version: an older session grant is
 * never widened into a new one. `grant_text` says in words what the grant covers, or why none is
 * offered.
 */
export const approvalGrants: Migration = {
  version: 3,
  name: "approval grants",
  sqlite: `
ALTER TABLE approvals ADD COLUMN grant_key TEXT;
ALTER TABLE approvals ADD COLUMN grant_text TEXT;
`,
  postgres: `
ALTER TABLE approvals ADD COLUMN grant_key text;
ALTER TABLE approvals ADD COLUMN grant_text text;
`,
};
