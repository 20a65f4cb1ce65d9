import type { ShellAnalysis } from "../../../src/policy/shell/shell-analysis.js";

/**
 * A script's simple commands, one per argv, as the shell analysis gives them: top level, no
 * uncertainties.
 */
export const simpleAnalysis = (...argvs: string[][]): ShellAnalysis => ({
  commands: argvs.map((argv) => ({
    argv,
    program: argv[0] ?? "",
    text: argv.join(" "),
    depth: 0,
    via: [],
  })),
  uncertainties: [],
});
