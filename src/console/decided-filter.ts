import type { ApprovalPageFilter, ApprovalStatus } from "../store/approval-record.js";

/** The decided view's filters as the approver typed them (echoed back into the form). */
export interface DecidedFilter {
  readonly tool: string;
  readonly principal: string;
  readonly approver: string;
  readonly decision: "" | Exclude<ApprovalStatus, "pending">;
  readonly from: string;
  readonly to: string;
  readonly project: string;
  readonly q: string;
  readonly cursor: string;
}

/** A decided view's query, read: the store's filter, or every reason it was refused. */
export type DecidedQuery =
  | { readonly status: "ok"; readonly filter: DecidedFilter; readonly page: ApprovalPageFilter }
  | { readonly status: "invalid"; readonly problems: readonly string[] };

const KEYS = ["tool", "principal", "approver", "decision", "from", "to", "project", "q", "cursor"];
const DECISIONS = ["approved", "denied", "expired"] as const;
const MAX_TEXT = 200;
const DAY_MS = 86_400_000;

// A date (the whole UTC day) or a minute (datetime-local's value, read as UTC).
function time(text: string, end: boolean): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?$/.exec(text);
  if (!match) return undefined;
  const [y, mo, d, h, mi] = match.slice(1).map((part) => Number(part ?? 0));
  if (y === undefined || mo === undefined || d === undefined || h === undefined || mi === undefined)
    return undefined;
  if (h > 23 || mi > 59) return undefined;
  const ms = Date.UTC(y, mo - 1, d, h, mi);
  // Date.UTC rolls 2026-02-31 over into March: a date that does not round-trip is not one.
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d)
    return undefined;
  if (!end) return ms;
  return match[4] === undefined ? ms + DAY_MS : ms + 60_000;
}

/**
 * Read the decided view's query string. Everything is checked, nothing is guessed: an unknown
 * or repeated parameter, a decision that is not one, a date that is not a date, a project this
 * console does not serve or text with control characters is refused with its reason (a 400),
 * never silently widened into "everything".
 *
 * @example
 * ```ts
 * readDecidedQuery(new URLSearchParams("decision=denied&tool=issue_refund"), { projects: [] });
 * // { status: "ok", page: { statuses: ["denied"], tool: "issue_refund" }, ... }
 * ```
 */
export function readDecidedQuery(
  params: URLSearchParams,
  { projects }: { projects: readonly string[] },
): DecidedQuery {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const [key, value] of params) {
    if (!KEYS.includes(key))
      problems.push(`"${key.slice(0, 40)}" is not a filter (${KEYS.join(", ")}).`);
    else if (seen.has(key)) problems.push(`"${key}" is given twice.`);
    else if (value.length > MAX_TEXT)
      problems.push(`"${key}" is longer than ${MAX_TEXT} characters.`);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    else if (/[\u0000-\u001f\u007f]/.test(value))
      problems.push(`"${key}" holds a control character.`);
    else seen.set(key, value.trim());
  }
  const get = (key: string) => seen.get(key) ?? "";
  const decision = get("decision");
  if (decision !== "" && !(DECISIONS as readonly string[]).includes(decision)) {
    problems.push(`"decision" is one of ${DECISIONS.join(", ")} (or empty for any).`);
  }
  const from = get("from") === "" ? undefined : time(get("from"), false);
  const to = get("to") === "" ? undefined : time(get("to"), true);
  for (const [key, value] of [
    ["from", from],
    ["to", to],
  ] as const) {
    if (get(key) !== "" && value === undefined) {
      problems.push(`"${key}" is a date (YYYY-MM-DD) or a time (YYYY-MM-DDTHH:MM, UTC).`);
    }
  }
  if (from !== undefined && to !== undefined && from >= to) {
    problems.push(`"from" must come before "to".`);
  }
  const project = get("project");
  if (project !== "" && !projects.includes(project)) {
    problems.push(
      projects.length === 0
        ? "This console does not know which project it serves, so it cannot filter by one."
        : `This console serves ${projects.map((p) => `"${p}"`).join(", ")}; "${project}" is not one.`,
    );
  }
  if (problems.length > 0) return { status: "invalid", problems };
  const filter: DecidedFilter = {
    tool: get("tool"),
    principal: get("principal"),
    approver: get("approver"),
    decision: decision as DecidedFilter["decision"],
    from: get("from"),
    to: get("to"),
    project,
    q: get("q"),
    cursor: get("cursor"),
  };
  const page: ApprovalPageFilter = {
    statuses: filter.decision === "" ? [...DECISIONS] : [filter.decision],
    ...(filter.tool ? { tool: filter.tool } : {}),
    ...(filter.principal ? { requestedBy: filter.principal } : {}),
    ...(filter.approver ? { decidedBy: filter.approver } : {}),
    ...(from === undefined ? {} : { createdFrom: from }),
    ...(to === undefined ? {} : { createdBefore: to }),
    ...(filter.q ? { search: filter.q } : {}),
    ...(filter.cursor ? { cursor: filter.cursor } : {}),
  };
  return { status: "ok", filter, page };
}
