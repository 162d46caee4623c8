#!/usr/bin/env bash
# Records and replays a sample of ordinary programs as a new user would, and counts how
# many record (the program's own exit status), replay (status 0) and print the same output.
# usage: scripts/real_sample.sh DEJA [FILTER]   (prints one line per program, then a count)
set -u
deja=$(readlink -f "$1")
filter=${2:-}
work=$(mktemp -d /tmp/deja-sample.XXXXXX)
trace="$work.trace"
trap 'rm -rf "$work" "$trace"' EXIT
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
  "bash -c 'trap \"echo TERM\" TERM; kill -TERM \$\$; echo after'"
  "bash -c 'sleep 0.2 & sleep 0.1 & wait; echo both'"
  "bash -c 'for i in \$(seq 1 20); do echo \$i; done | sort -n | tail -2'"
  "bash -c 'exec 3>&1; echo via fd3 >&3'"
  "bash -c 'ulimit -n; umask'"
  "bash -c 'read x <<< \"here string\"; echo \$x'"
  "bash -c 'coproc cat; echo ping >&\${COPROC[1]}; read l <&\${COPROC[0]}; echo \$l; kill \$COPROC_PID'"
  "sh -c 'sleep 5 & p=\$!; kill -STOP \$p; kill -CONT \$p; kill \$p; wait \$p; echo \$?'"
  "find . -name '*.txt' -exec wc -c {} +"
  "xargs -P 2 -n 1 echo <in.txt"
  "sort --parallel=2 -S 1M in.txt"
  "split -l 2 in.txt part_ && cat part_aa && rm part_*"
  "python3 -c 'import os; r,w=os.pipe(); pid=os.fork(); (os.write(w,b\"hi\"), os._exit(0)) if pid==0 else print(os.read(r,2), os.waitpid(pid,0)[1])'"
  "python3 -c 'import signal,os; signal.signal(signal.SIGUSR1, lambda s,f: print(\"sig\", s)); os.kill(os.getpid(), signal.SIGUSR1); print(\"ok\")'"
  "python3 -c 'import concurrent.futures as c; print(list(c.ThreadPoolExecutor(4).map(lambda x: x*x, range(8))))'"
  "python3 -c 'import asyncio; asyncio.run(asyncio.sleep(0.01)); print(\"async ok\")'"
  "python3 -c 'import socket; a,b=socket.socketpair(); a.send(b\"x\"); print(b.recv(1))'"
  "python3 -c 'import tempfile,os; d=tempfile.mkdtemp(); open(d+\"/f\",\"w\").write(\"z\"); print(os.listdir(d))'"
  "python3 -c 'import mmap; m=mmap.mmap(-1, 4096); m[0:5]=b\"hello\"; print(m[0:5])'"
  "python3 -c 'import sqlite3; c=sqlite3.connect(\":memory:\"); c.execute(\"create table t(x)\"); c.execute(\"insert into t values (42)\"); print(c.execute(\"select * from t\").fetchall())'"
  "python3 -c 'import multiprocessing as m; q=m.Queue(); p=m.Process(target=q.put, args=(7,)); p.start(); print(q.get()); p.join()'"
  "python3 -c 'import resource; print(resource.getrlimit(resource.RLIMIT_NOFILE))'"
  "python3 -c 'import faulthandler, threading, time; t=threading.Timer(0.05, lambda: print(\"timer\")); t.start(); t.join()'"
  "perl -e 'use threads; print join(\",\", map { \$_->join } map { threads->create(sub { \$_[0]*2 }, \$_) } 1..3), qq(\\n)' 2>/dev/null || echo no-threads"
  "perl -e '\$SIG{ALRM}=sub{print qq(alarm\\n); exit 0}; alarm 1; select(undef,undef,undef,2)'"
  "perl -e 'open(my \$p, q(-|), q(echo piped)) or die; print <\$p>'"
  "awk 'BEGIN { srand(1); print int(rand()*100) }'"
  "make -s -j2 -f Makefile"
  "tar czf - in.txt | tar tzf -"
  "sha1sum /bin/ls"
  "ls -lR /usr/include/linux/netfilter | wc -l"
  "cat /proc/self/status | grep -c ."
  "dd if=/dev/zero bs=1k count=4 2>/dev/null | wc -c"
  "head -c 100 /dev/urandom | wc -c"
  "timeout -s KILL 0.2 sleep 1"
  "nice -n 5 nice"
  "flock /tmp/deja-sample.lock echo locked"
  "getconf PAGESIZE"
  "locale"
  "ldd /bin/ls | wc -l"
  "tac in.txt"
  "nl in.txt"
  "paste in.txt in.txt"
  "join <(sort in.txt) <(sort in.txt)"
  "bc <<< '2^64'"
  "stdbuf -oL echo buffered"
  "script -qc 'echo tty' /dev/null"
  "printf 'int main(void){return 3;}' > t.c && gcc -O1 -o t t.c && ./t; echo \$?"
  "printf '#include <stdio.h>\\nint main(void){puts(\"hi\");}' > h.c && clang -o h h.c && ./h"
  "g++ --version | head -1"
  "git init -q g && cd g && git -c user.email=a@b -c user.name=n commit -q --allow-empty -m m && git log --format=%s"
  "sqlite3 :memory: 'select 6*7'"
  "openssl sha256 in.txt"
  "openssl rand -hex 8 | wc -c"
  "xz -c in.txt | xz -dc"
  "zstd -q -c in.txt | zstd -dc"
  "bzip2 -c in.txt | bzip2 -dc"
  "jq -n '[1,2,3] | add'"
  "echo 'puts [expr 6*7]' | tclsh"
  "node -e 'console.log([1,2,3].map(x => x * 2).join(\",\"))'"
  "node -e 'setTimeout(() => console.log(\"timer\"), 10)'"
  "node -e 'require(\"child_process\").exec(\"echo child\", (e, o) => process.stdout.write(o))'"
  "java -version 2>&1 | head -1"
  "strace -f -o /dev/null true"
  "gdb -batch -ex 'print 6*7'"
  "valgrind -q true"
  "rustc --version"
)
pass=0 total=0
for p in "${programs[@]}"; do
  if [ -n "$filter" ] && [[ "$p" != *"$filter"* ]]; then continue; fi
  total=$((total + 1))
  rm -rf "$trace"
  sh -c "$p" </dev/null >want.out 2>/dev/null
  want=$?
  timeout 120 "$deja" record -o "$trace" -- sh -c "$p" </dev/null >rec.out 2>rec.err
  got=$?
  verdict=ok
  if [ $got -ne $want ]; then
    verdict="record exit $got (want $want): $(grep '^deja' rec.err | grep -v Saving | head -1)"
  else
    timeout 120 "$deja" replay -a "$trace" </dev/null >rep.out 2>rep.err
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
