#!/bin/sh
# A shell script with traps (issue "Signals in recorded programs"): a handled USR1 sent
# to itself, an EXIT trap, a subshell exit status.
trap 'echo caught USR1' USR1
trap 'echo exiting' EXIT
kill -USR1 $$
echo after kill
sleep 0.1
( echo subshell; exit 3 ); echo "sub status $?"
