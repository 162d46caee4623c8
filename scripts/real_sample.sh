#!/usr/bin/env bash
# Records and replays a sample of ordinary programs as a new user would, and counts how
# many record (the program's own exit status), replay (status 0) and print the same output.
# usage: scripts/real_sample.sh DEJA [FILTER]   (prints one line per program, then a count)
set -u
deja=$(readlink -f "$1")
filter=${2:-}
work=$(mktemp -d /tmp/deja-sample.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
printf 'pear 3\napple 1\nfig 2\nbanana 5\n' >in.txt
printf 'all:\n\t@echo built $$((6*7))\n' >Makefile
cat >script.sh <<'SH'
set -e
x=0; for i in 1 2 3; do x=$((x+i)); done
f() { echo "f:$1"; }; f "$x"
echo "$(echo sub | tr a-z A-Z)" | cat
ls / | head -3 >/dev/null
(sleep 0.01; echo bg) & wait
case "$x" in 6) echo six;; esac
SH
programs=(
  "ls -la /usr/lib"
  "cat in.txt"
  "sort in.txt"
  "sort -k2 -n in.txt"
  "sort -R in.txt"
  "uniq -c in.txt"
  "wc in.txt"
  "head -2 in.txt"
  "tail -1 in.txt"
  "cut -d' ' -f1 in.txt"
  "tr a-z A-Z <in.txt"
  "sed s/a/A/g in.txt"
  "awk '{s+=\$2} END {print s}' in.txt"
  "grep -n an in.txt"
  "find /usr/include/linux -name 'if_*.h'"
  "du -s /usr/include"
  "date"
  "seq 1 5"
  "md5sum in.txt"
  "sha256sum in.txt"
  "base64 in.txt"
  "od -c in.txt"
  "stat in.txt"
  "id"
  "uname -a"
  "env"
  "printf '%s\\n' a b"
  "xargs echo <in.txt"
  "tar cf - in.txt | tar tf -"
  "gzip -c in.txt | gunzip -c"
  "cp in.txt out.txt && cat out.txt"
  "mkdir -p d/e && touch d/e/f && ls -R d && rm -r d"
  "bash script.sh"
  "sh -c 'for i in 1 2; do echo \$i; done'"
  "make -s"
  "perl -e 'print join(\",\", map { \$_*2 } 1..5), qq(\\n)'"
  "perl -e 'my \$p=fork; if(\$p){waitpid(\$p,0); print qq(child done \$?\\n)} else {exit 3}'"
  "python3 -c 'print(sum(range(100)))'"
  "python3 -c 'import threading; r=[]; ts=[threading.Thread(target=r.append,args=(i,)) for i in range(4)]; [t.start() for t in ts]; [t.join() for t in ts]; print(sorted(r))'"
  "python3 -c 'import subprocess; print(subprocess.run([\"echo\",\"hi\"],capture_output=True).stdout)'"
  "python3 -c 'import multiprocessing as m; print(m.Pool(2).map(abs,[-1,-2,3]))'"
  "python3 -c 'import json,os; print(json.dumps(sorted(os.listdir(\"/usr\"))))'"
  "python3 -c 'import time; time.sleep(0.05); print(\"slept\")'"
  "timeout 1 sleep 0.1"
  "nproc"
  "whoami"
  "hostname"
  "ps -o pid,comm"
  "df -h /"
  "git --version"
  "diff in.txt in.txt"
  "cmp in.txt in.txt"
  "file /bin/ls"
  "readlink -f /bin/sh"
  "realpath ."
  "basename /a/b/c"
  "expr 6 \\* 7"
  "test -f in.txt"
  "yes | head -3"
  "comm in.txt in.txt"
)
pass=0 total=0
for p in "${programs[@]}"; do
  if [ -n "$filter" ] && [[ "$p" != *"$filter"* ]]; then continue; fi
  total=$((total + 1))
  rm -rf t
  sh -c "$p" </dev/null >want.out 2>/dev/null
  want=$?
  timeout 120 "$deja" record -o t -- sh -c "$p" </dev/null >rec.out 2>rec.err
  got=$?
  verdict=ok
  if [ $got -ne $want ]; then
    verdict="record exit $got (want $want): $(grep '^deja' rec.err | grep -v Saving | head -1)"
  else
    timeout 120 "$deja" replay -a t </dev/null >rep.out 2>rep.err
    rs=$?
    if [ $rs -ne 0 ]; then
      verdict="replay exit $rs: $(grep '^deja' rep.err | head -1)"
    elif ! cmp -s rec.out rep.out; then
      verdict="replay output differs"
    fi
  fi
  [ "$verdict" = ok ] && pass=$((pass + 1))
  printf '%-4s %s\n   %s\n' "$([ "$verdict" = ok ] && echo PASS || echo FAIL)" "$p" "$verdict"
done
echo "passed $pass of $total"
