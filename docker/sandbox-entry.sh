#!/bin/sh
# The command of a submission's container: the kernel's runner becomes PID 1 (no init), with its
# result channel on the container's stdout (fd 3 here) and everything else it or the learner's
# code prints on stderr. No other process holds the container's stdout: the runner makes itself
# undumpable, so its ranks (same uid) cannot reopen it through /proc/1/fd. The runner exits when
# stdin closes (the worker ended the attach, or died), and as PID 1 its exit kills every process
# of the container: none outlives its worker.
exec python -m cjudge.rank.runner --result-fd 3 --end-with-stdin 3>&1 1>&2
