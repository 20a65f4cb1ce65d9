/**
 * Differential check against real bash: for each disguise of a harmless marker command
 * (`touch FILE`), bash runs the script; whenever bash did run the marker, the analysis must
 * either have found it (so a deny rule applies) or reported an uncertainty (so no allow rule
 * applies). Skipped where bash is not installed.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadShellParser, type ShellParser } from "./shell-parser.js";

const hasBash = (() => {
  try {
    execFileSync("bash", ["-c", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const dir = mkdtempSync(join(tmpdir(), "docket-shell-"));
const marker = join(dir, "marker");
const list = join(dir, "list");
const MARK = `touch ${marker}`;

const DISGUISES: ReadonlyArray<(c: string) => string> = [
  (c) => c,
  (c) => `\\${c}`,
  (c) => `'${c.split(" ")[0]}' ${c.split(" ").slice(1).join(" ")}`,
  (c) => c.replace("touch", "to''uch"),
  (c) => c.replace("touch", "$'\\x74ouch'"),
  (c) => c.replace("touch", "to{uch,}"),
  (c) => `x=touch; $x ${c.split(" ")[1]}`,
  (c) => `env -i A=1 ${c}`,
  (c) => `nice -n 3 ${c}`,
  (c) => `timeout 5 ${c}`,
  (c) => `command ${c}`,
  (c) => `time ! ${c}`,
  (c) => `echo $(${c})`,
  (c) => `echo "\`${c}\`"`,
  (c) => `cat <(${c})`,
  (c) => `: \${x:=$(${c})}`,
  (c) => `[[ $(${c}) ]]`,
  (c) => `bash -c '${c}'`,
  (c) => `sh -ec '${c}'`,
  (c) => `(${c})`,
  (c) => `{ ${c}; }`,
  (c) => `f() { ${c}; }; f`,
  (c) => `if true; then ${c}; fi`,
  (c) => `find ${list} -exec ${c} \\;`,
  (c) => `xargs ${c} < ${list}`,
  (c) => `echo ${c} | sh`,
  (c) => `eval '${c}'`,
  (c) => `cat <<EOF\n$(${c})\nEOF`,
  (c) => `cat <<EOF\n\`${c}\`\nEOF`,
  (c) => `bash <<< '${c}'`,
  (c) => `ls\n\\${c}`,
  (c) => `ls\n\\\n${c}`,
  (c) => `x=abc; echo \${x#$(${c})}`,
  (c) => `x=abc; echo \${x//a/\`${c}\`}`,
  (c) => `x=abc; echo "\${x^^\`${c}\`}"`,
  (c) => `echo \${x:-\`${c}\`}`,
  (c) => `x='a[$(${c})]'; echo $((x))`,
  (c) => `x='a[$(${c})]'; [[ $x -eq 0 ]]`,
  (c) => `x='a[$(${c})]'; echo \${!x}`,
  (c) => `x='$(${c})'; echo \${x@P}`,
  (c) => `printf -v 'a[$(${c})]' 1`,
  (c) => `mapfile -C '${c}' -c 1 l <<< a`,
];

/** Every disguise alone, and a fixed sample of disguises of disguises. */
const SCRIPTS = [
  ...DISGUISES.map((d) => d(MARK)),
  ...DISGUISES.map((outer, i) =>
    outer((DISGUISES[(i * 7 + 3) % DISGUISES.length] as (c: string) => string)(MARK)),
  ),
];

describe.skipIf(!hasBash)("agreement with bash", () => {
  let shell: ShellParser;
  beforeAll(async () => {
    shell = await loadShellParser();
    writeFileSync(list, "a\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(SCRIPTS)("%j: what bash runs is found or uncertain", (script) => {
    rmSync(marker, { force: true });
    try {
      execFileSync("bash", ["-c", `${script}\nwait`], { cwd: dir, stdio: "ignore", timeout: 5000 });
    } catch {
      // A failing script may still have run the marker; only the marker matters.
    }
    if (!existsSync(marker)) return;
    const analysis = shell.analyse(script);
    const found = analysis.commands.some(
      (c) => c.program.endsWith("touch") && c.argv.includes(marker),
    );
    expect(found || analysis.uncertainties.length > 0, JSON.stringify(analysis, null, 1)).toBe(
      true,
    );
  });
});
