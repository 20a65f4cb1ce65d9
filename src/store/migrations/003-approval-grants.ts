import type { Migration } from "./migration.js";

/**
 * Version 3 (no released store ever had a version 2: the number was taken and given up while
 * two changes were built side by side; version 4 adds the signed trail's checkpoints): what a
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
