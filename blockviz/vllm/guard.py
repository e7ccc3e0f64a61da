"""Run a command that ends when the process that started it dies.

    python guard.py PID COMMAND...

A vLLM server lives in a process session of its own (so it can be stopped as a group), which also
means it outlives a notebook kernel that is killed with SIGKILL: no atexit handler runs then. This
asks Linux to send SIGTERM when the parent goes (prctl PR_SET_PDEATHSIG, which survives exec),
checks the parent is still PID (it may have died before the request), and then becomes COMMAND.
Linux sends the signal when the *thread* that started the process ends, so start servers from a
thread that lives as long as they should (a notebook's cells and the CLI run on the main thread).
It is run as a file, not a module, so that it imports nothing of blockviz on the way.
"""
import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def main(argv: list[str]) -> int:
    parent, command = int(argv[1]), argv[2:]
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM) != 0:
        print(f"guard: prctl failed (errno {ctypes.get_errno()}); the server will not follow its parent",
              file=sys.stderr)
    if os.getppid() != parent:
        return 1  # the parent is gone already
    os.execv(command[0], command)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
