"""Run a command in a pseudo-terminal and relay bytes both ways, for tests of interactive CLIs.

Usage: python3 pty-relay.py COMMAND [ARG...]

What the test writes to this process's stdin is typed into the terminal (so "\\x03" is Ctrl-C,
delivered by the terminal as SIGINT to the command); what the command writes to the terminal
comes out on stdout. Exits with the command's exit code (128 + N when a signal N ended it).
"""
import os
import pty
import select
import sys

pid, master = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])

stdin = sys.stdin.fileno()
stdout = sys.stdout.fileno()
reading_stdin = True
while True:
    sources = [master, stdin] if reading_stdin else [master]
    ready, _, _ = select.select(sources, [], [])
    if master in ready:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        os.write(stdout, data)
    if reading_stdin and stdin in ready:
        data = os.read(stdin, 4096)
        if data:
            os.write(master, data)
        else:
            reading_stdin = False

_, status = os.waitpid(pid, 0)
if os.WIFSIGNALED(status):
    sys.exit(128 + os.WTERMSIG(status))
sys.exit(os.WEXITSTATUS(status))
