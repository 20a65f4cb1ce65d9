import { call, turn, writeScriptFile } from "../../loop/support/model-script.js";
import { runDocket } from "../../support/run-docket.js";
import { cliProject } from "./cli-project.js";

/**
 * A project whose one approver (`name`, with a token in `TOKEN_ENV`) decides in suspend mode,
 * and a `docket run` (model from `--model`, as the README runs it) left waiting on a write_file
 * of `note.txt`: its stderr, the request id and the script for a resume.
 *
 * @example
 * ```ts
 * const { dir, env, id } = await suspendedWrite("bob");
 * await runDocket(["approvals", "approve", id], { cwd: dir, env: { ...env, DOCKET_TOKEN: env.BOB_TOKEN } });
 * ```
 */
export async function suspendedWrite(
  name: string,
  /** Runs in the project before `docket run` (start `docket serve` there, say). */
  before?: (dir: string, env: NodeJS.ProcessEnv) => Promise<void>,
) {
  const tokenEnv = `${name.toUpperCase()}_TOKEN`;
  const project = await cliProject(
    `principal: agent\napprovers:\n  ${name}: { roles: [lead], token_env: ${tokenEnv} }\napprovals: { mode: suspend, default_approvers: ['role:lead'] }\n`,
  );
  const { dir } = project;
  const env: NodeJS.ProcessEnv = {
    ...project.env,
    [tokenEnv]: `${name}-token-for-the-suspended-write`,
  };
  const script = await writeScriptFile(dir, [
    turn("Writing.", call("c_write", "write_file", { path: "note.txt", content: "hello\n" })),
    turn("Written."),
  ]);
  await before?.(dir, env);
  const run = await runDocket(["run", "write a note", "--model", `scripted:${script}`], {
    cwd: dir,
    env,
  });
  if (run.code !== 0) throw new Error(`docket run failed: ${run.stderr}`);
  const id = /waiting for approval (\S+) /.exec(run.stderr)?.[1] ?? "";
  return {
    dir,
    env,
    token: `${name}-token-for-the-suspended-write`,
    script,
    stderr: run.stderr,
    id,
  };
}
