// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell syntax, not templates
/**
 * The cases of test/policy/shell-hidden-execution.test.ts. Each runs in a scratch directory
 * holding `victim`, `payload` (`a[$(touch M)]`) and `prompt` (`$(touch M)`); git cases also
 * get a repository with a committed, then modified `a.txt`, a `.gitattributes` naming the
 * diff driver `t` and filter `f`, `evil.cfg` (an alias `v` that touches M) and `hooks/pre-commit`.
 */

/** One string, its family, and what it does under bash (default: `creates M`). */
export interface HiddenCase {
  script: string;
  family: "expansion" | "arithmetic" | "re-evaluation" | "git";
  /** `deletes victim` cases hide `rm`, so a deny rule on `rm` must deny them. */
  proof?: "deletes victim" | `creates ${string}`;
  repo?: boolean;
}

const RM = "deletes victim" as const;

export const HIDDEN: readonly HiddenCase[] = [
  // Code inside the words of ${…} operators.
  { family: "expansion", script: "x=abc; echo ${x#$(rm victim)}", proof: RM },
  { family: "expansion", script: "x=abc; echo ${x##`rm victim`}", proof: RM },
  { family: "expansion", script: "x=abc; echo ${x%$(touch M)}" },
  { family: "expansion", script: 'x=abc; echo "${x%%$(rm victim)}"', proof: RM },
  { family: "expansion", script: "x=abc; echo ${x/a/$(touch M)}" },
  { family: "expansion", script: "x=abc; echo ${x//a/`rm victim`}", proof: RM },
  { family: "expansion", script: "x=abc; echo ${x/#a/`touch M`}" },
  { family: "expansion", script: "x=abc; echo ${x^$(rm victim)}", proof: RM },
  { family: "expansion", script: "x=abc; echo ${x^^`touch M`}" },
  { family: "expansion", script: "x=ABC; echo ${x,$(touch M)}" },
  { family: "expansion", script: "x=ABC; echo ${x,,`rm victim`}", proof: RM },
  { family: "expansion", script: "echo ${x:-`rm victim`}", proof: RM },
  { family: "expansion", script: "echo ${x:=`touch M`}" },
  { family: "expansion", script: "x=1; echo ${x:+`rm victim`}", proof: RM },
  { family: "expansion", script: "echo ${x:?`touch M`}" },
  { family: "expansion", script: "echo ${x-`touch M`}" },
  { family: "expansion", script: "echo ${x:-${y:-`rm victim`}}", proof: RM },
  { family: "expansion", script: "x=abc; cat <<EOF\n${x#`touch M`}\nEOF" },
  // Arithmetic that evaluates a value holding a subscript with a command substitution.
  { family: "arithmetic", script: "x='a[$(rm victim)]'; echo $(( x ))", proof: RM },
  { family: "arithmetic", script: "x='a[$(touch M)]'; echo $(( x + 1 ))" },
  { family: "arithmetic", script: "x='a[$(rm victim)]'; [[ $x -eq 1 ]]; echo", proof: RM },
  { family: "arithmetic", script: "x='a[$(touch M)]'; [[ x -lt 1 ]] && echo" },
  { family: "arithmetic", script: "x='a[$(touch M)]'; [[ 1 -ne x ]] && echo" },
  { family: "arithmetic", script: "y=$(cat payload); echo $(( y ))" },
  { family: "arithmetic", script: "read v < payload; echo $((v))" },
  { family: "arithmetic", script: "x='a[$(rm victim)]'; let x; echo", proof: RM },
  { family: "arithmetic", script: "let 'y=a[$(touch M)]'; echo" },
  { family: "arithmetic", script: "declare -i n; x='a[$(touch M)]'; n=$x; echo" },
  { family: "arithmetic", script: "x='a[$(touch M)]'; declare -i n=$x; echo" },
  { family: "arithmetic", script: "x='a[$(touch M)]'; a=(1 2); echo ${a[x]}" },
  { family: "arithmetic", script: "x='a[$(touch M)]'; s=hello; echo ${s:x:1}" },
  { family: "arithmetic", script: "x='a[$(touch M)]'; a[x]=1; echo" },
  { family: "arithmetic", script: "printf -v 'a[$(rm victim)]' 1; echo", proof: RM },
  { family: "arithmetic", script: "read 'a[$(touch M)]' <<< 1; echo" },
  { family: "arithmetic", script: "x='a[$(touch M)]'; [[ -v $x ]]; echo" },
  { family: "arithmetic", script: "test -v 'a[$(rm victim)]'; echo", proof: RM },
  { family: "arithmetic", script: "x='a[$(touch M)]'; for ((i=0; i<x; i++)); do echo; done" },
  { family: "arithmetic", script: "x='a[$(touch M)]'; echo $[x]" },
  { family: "arithmetic", script: "while read v; do echo $(( v )); done < payload" },
  { family: "arithmetic", script: "declare 'a[$(touch M)]=1'; echo" },
  { family: "arithmetic", script: "x='a[$(rm victim)]'; y=x; echo $((y))", proof: RM },
  { family: "arithmetic", script: "f() { echo $(( $1 )); }; f 'a[$(touch M)]'" },
  { family: "arithmetic", script: "x='a[$(touch M)]'; ! (( x )); echo" },
  { family: "arithmetic", script: "x='a[$(rm victim)]'; cat <<EOT\n$(( x ))\nEOT", proof: RM },
  { family: "arithmetic", script: "set -- 'a[$(touch M)]'; [[ $1 -gt 0 ]]; echo" },
  { family: "arithmetic", script: "declare -n r=x; x='a[$(touch M)]'; echo $((r))" },
  { family: "arithmetic", script: "n=1; unset n; : ${n:=$(cat payload)}; echo $(( n ))" },
  { family: "arithmetic", script: "REPLY=1; read < payload; echo $(( REPLY ))" },
  { family: "arithmetic", script: "n=1; declare -n r=n; r=$(cat payload); echo $(( n ))" },
  { family: "arithmetic", script: "declare -Ai m; m[k]=$(cat payload); echo" },
  { family: "arithmetic", script: "declare -i n; read n < payload; echo" },
  // Expansions and builtins that evaluate a value again.
  { family: "re-evaluation", script: "x='$(rm victim)'; echo ${x@P}", proof: RM },
  { family: "re-evaluation", script: "x='`touch M`'; echo \"${x@P}\"" },
  { family: "re-evaluation", script: "y=$(cat prompt); echo ${y@P}" },
  { family: "re-evaluation", script: "x='a[$(rm victim)]'; echo ${!x}", proof: RM },
  { family: "re-evaluation", script: "x=HOME; read x < payload; echo ${!x}" },
  { family: "re-evaluation", script: "x=y; y='$(touch M)'; echo ${!x@P}" },
  { family: "re-evaluation", script: "while read l; do echo ${l@P}; done < prompt" },
  { family: "re-evaluation", script: "mapfile -C 'rm victim' -c 1 lines <<< a; echo", proof: RM },
  { family: "re-evaluation", script: "readarray -C 'touch M' -c 1 lines < payload; echo" },
  // A shell or interpreter whose program file is text built at run time (red-team round).
  { family: "re-evaluation", script: "bash <(echo touch M)" },
  { family: "re-evaluation", script: "bash /dev/stdin <<< 'rm victim'", proof: RM },
  { family: "re-evaluation", script: "sh /proc/self/fd/0 <<< 'rm victim'", proof: RM },
  { family: "re-evaluation", script: "sh /dev/fd/3 3<<< 'touch M'" },
  { family: "re-evaluation", script: 'python3 /dev/stdin <<< \'open("M", "w")\'' },
  { family: "re-evaluation", script: 'python3 <(echo \'open("M", "w")\')' },
  // git configuration that becomes a command, and git writing where an argument says.
  { family: "git", repo: true, script: "git -c Alias.X='!rm victim' x", proof: RM },
  { family: "git", repo: true, script: "git config alias.y '!rm victim' && git y", proof: RM },
  { family: "git", repo: true, script: "git config --add Alias.z '!touch M'; git z" },
  { family: "git", repo: true, script: "git config alias.q '!rm victim' --list; git q", proof: RM },
  { family: "git", repo: true, script: "git config alias.r '!touch M' get; git r" },
  { family: "git", repo: true, script: "k=alias.w; git config \"$k\" '!touch M'; git w" },
  {
    family: "git",
    repo: true,
    script: "git config --file .git/config alias.u '!rm victim'; git u",
    proof: RM,
  },
  { family: "git", repo: true, script: "git config core.fsmonitor 'touch M'; git status" },
  { family: "git", repo: true, script: "git -c core.fsmonitor='touch M' status" },
  { family: "git", repo: true, script: "git config -- core.fsmonitor 'touch M'; git status" },
  { family: "git", repo: true, script: "git --no-pager -c CORE.FSMONITOR='touch M' status" },
  { family: "git", repo: true, script: "git -c core.hooksPath=hooks commit -q --allow-empty -m x" },
  {
    family: "git",
    repo: true,
    script: "git config Core.HooksPath hooks && git commit -q --allow-empty -m x",
  },
  { family: "git", repo: true, script: "git -c diff.t.textconv='touch M; cat' diff" },
  { family: "git", repo: true, script: "git -c diff.external='touch M' diff" },
  { family: "git", repo: true, script: "GIT_EXTERNAL_DIFF='touch M' git diff" },
  {
    family: "git",
    repo: true,
    script: "git -c tar.t.command='touch M; cat' archive --format=t HEAD",
  },
  {
    family: "git",
    repo: true,
    script: "git -c core.sshCommand='touch M' fetch ssh://example.invalid/x",
  },
  {
    family: "git",
    repo: true,
    script: "GIT_SSH_COMMAND='touch M' git fetch ssh://example.invalid/x",
  },
  {
    family: "git",
    repo: true,
    script:
      "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch M' git status",
  },
  {
    family: "git",
    repo: true,
    script: "export GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='touch M'\"; git status",
  },
  { family: "git", repo: true, script: "git -c core.editor='touch M' commit --allow-empty" },
  { family: "git", repo: true, script: "git -c filter.f.clean='touch M; cat' add a.txt" },
  { family: "git", repo: true, script: "git config include.path ../evil.cfg && git v" },
  { family: "git", repo: true, script: "git archive -o M HEAD" },
  { family: "git", repo: true, script: "git bundle create M HEAD" },
  { family: "git", repo: true, script: "git format-patch -q -o M -1" },
  { family: "git", repo: true, script: "git worktree add -q M" },
  { family: "git", repo: true, script: "git clone -q . M" },
  { family: "git", repo: true, script: "git init -q M" },
  { family: "git", repo: true, script: "git config -f M a.b c" },
  { family: "git", repo: true, script: "git log --output=M -1" },
  {
    family: "git",
    repo: true,
    script: "mkdir W; git --work-tree=W checkout -f -- a.txt",
    proof: "creates W/a.txt",
  },
  { family: "git", repo: true, script: "git --git-dir=.git -c alias.v='!touch M' v" },
  // git's option parser takes any unambiguous prefix of a long option (red-team round).
  { family: "git", repo: true, script: "git ls-remote --upload='touch M' ." },
  { family: "git", repo: true, script: "git ls-remote --u='touch M' ." },
  { family: "git", repo: true, script: "git fetch -q --upload='touch M' ." },
  { family: "git", repo: true, script: "git pull -q --upload='touch M' . HEAD" },
  { family: "git", repo: true, script: "git grep --open='touch M' two" },
  {
    family: "git",
    repo: true,
    script: "git stash -q && git rebase -q --exe='rm victim' --root",
    proof: RM,
  },
  { family: "git", repo: true, script: "git init -q --sep=M d" },
];
