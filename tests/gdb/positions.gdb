# rr's position commands as scripts use them: when, when-tid (without `monitor'); gdb's
# run N / starti N go to event N; run with no such event stays
break mark
continue
continue
when
when-tid
python gdb.execute("set $ev = %s" % gdb.execute("when", to_string=True).split()[2].rstrip("."))
continue
eval "starti %d", $ev
python w = int(gdb.execute("when", to_string=True).split()[2].rstrip(".")); print("back at event $ev" if w == int(gdb.parse_and_eval("$ev")) else "at event %d, not $ev" % w)
continue
print i
starti 99999999
print i
set args
delete
continue
