#!/bin/sh
# The command of a submission's container (docker-init is PID 1). Starts the kernel's runner
# with its result channel on the container's stdout and everything else it or the learner's
# code prints on stderr, and feeds it the worker's stdin. When stdin closes (the worker ended
# the attach, or died) every process of the container is killed: none outlives its worker.
exec 4<&0
{
  cat <&4
  kill -9 -1
} | python -m cjudge.runner --result-fd 3 3>&1 1>&2 &
wait $!
