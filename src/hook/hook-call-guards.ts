import { isAbsolute, relative, resolve } from "node:path";
import type { PolicyFunction, PolicyRequest, PolicyVerdict } from "../policy/policy.js";
import type { HostToolMapping } from "./host-tool-mapping.js";
import { interactiveStart } from "./interactive-start.js";

/** An allow by a rule of a policy layer: a default or an ask does not know what it lets through. */
function knowing(verdict: PolicyVerdict): boolean {
  return verdict.decision === "allow" && verdict.rule !== undefined && verdict.layer !== "default";
}

function deny(rule: string, reason: string): PolicyVerdict {
  return { decision: "deny", rule, layer: "docket", reason };
}

/** The folder a host's search covers: its path argument, or the workspace when it names none. */
function searchedFolder(request: PolicyRequest, workspace: string): string {
  const key = request.tool.policyArgs.path;
  const value = typeof key === "string" ? request.args[key] : undefined;
  if (typeof value !== "string" || value === "") return workspace;
  return isAbsolute(value) ? resolve(value) : resolve(workspace, value);
}

/** Whether `folder` is the workspace or holds it: a search there reaches docket's own files. */
function holdsWorkspace(folder: string, workspace: string): boolean {
  const rel = relative(folder, workspace);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * The votes a hook adds for what docket's own tools would never do, whatever the rules allow:
 * a call that escapes the hook (`mapping.escapes`) is denied unless a rule allows it (an ask or
 * a default is not a rule knowing it), and so is a command that would leave a process waiting
 * for keystrokes on a host that types into processes; a host search over the whole workspace is denied, since
 * the host's search cannot leave out docket's own files and deny-rule secrets as `search_files`
 * does, and the model is told to name a folder. Part of the decide step: stricter only.
 *
 * @example
 * ```ts
 * declare const runtime: import("../cli/build-runtime.js").Runtime;
 * declare const mapping: import("./host-tool-mapping.js").HostToolMapping;
 * const policy = guardHookCall(runtime.policy.decide, mapping, runtime.workspace);
 * ```
 */
export function guardHookCall(
  policy: PolicyFunction,
  mapping: HostToolMapping,
  workspace: string,
  keystrokesTool?: string,
): PolicyFunction {
  return async (request) => {
    const key = request.tool.policyArgs.command;
    const command = key === undefined ? undefined : request.args[key];
    const waiting =
      keystrokesTool !== undefined && typeof command === "string"
        ? interactiveStart(command)
        : undefined;
    if (waiting !== undefined) {
      const typing = await policy({
        ...request,
        tool: { ...request.tool, name: keystrokesTool as string, policyArgs: {} },
        args: {},
        rawArguments: "{}",
      });
      if (!knowing(typing)) {
        return deny(
          "hook:keystrokes",
          `${waiting} would wait for keystrokes, and what ${keystrokesTool} types into it reaches no hook; run it with a script or its code, or allow ${keystrokesTool} by a rule`,
        );
      }
    }
    if (
      mapping.searchesWorkspace &&
      holdsWorkspace(searchedFolder(request, workspace), workspace)
    ) {
      return deny(
        "hook:workspace-search",
        "a search over the whole workspace would reach docket's own files and the files deny rules protect; search a folder inside it",
      );
    }
    const verdict = await policy(request);
    if (mapping.escapes === undefined || verdict.decision === "deny") return verdict;
    return knowing(verdict)
      ? verdict
      : deny(
          "hook:escapes-hook",
          `${request.tool.name} is denied unless a rule allows it by name: ${mapping.escapes}`,
        );
  };
}
