#!/bin/bash
# How busy the machine's CPUs were while a command ran (issue 41's measure of idle time in
# `make test`): benchmarks/cpu_busy.sh make test  ->  "CPU busy: 91% ..." after its output.
read -r _ u n s i w q sq st _ < /proc/stat; b0=$((u+n+s+q+sq+st)); t0=$((b0+i+w))
"$@"; rc=$?
read -r _ u n s i w q sq st _ < /proc/stat; b1=$((u+n+s+q+sq+st)); t1=$((b1+i+w))
echo "CPU busy: $(( 100*(b1-b0)/(t1-t0) ))% (iowait and idle the rest)"; exit $rc
