import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { expect } from "vitest";
import type { PendingApproval, RunStatus } from "../../../src/loop/harness-options.js";
import { runTsx } from "./run-child.js";

/** What the resuming process reports. */
export interface ChildResume {
  readonly status: RunStatus;
  readonly text: string;
  readonly approvals: PendingApproval[];
  /** Every prompt the child's model was sent. */
  readonly prompts: LanguageModelV4Prompt[];
  /** `name:callId` of every handler that ran in the child. */
  readonly runs: string[];
}

/**
 * Resume a saved session in a new node process (test/loop/fixtures/resume-session.ts) that opens
 * the same SQLite file, and return what it reports. Close the store in this process first when
 * the test means a restart.
 *
 * @example
 * ```ts
 * const child = await resumeInChild(file, scriptFile, sessionId);
 * expect(child.status).toBe("completed");
 * ```
 */
export async function resumeInChild(
  storeFile: string,
  scriptFile: string,
  sessionId: string,
): Promise<ChildResume> {
  const outcome = await runTsx("test/loop/fixtures/resume-session.ts", [
    storeFile,
    scriptFile,
    sessionId,
  ]);
  expect(outcome.code, outcome.stderr).toBe(0);
  return JSON.parse(outcome.stdout.trim()) as ChildResume;
}
