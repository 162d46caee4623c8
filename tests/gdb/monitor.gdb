# rr's when-ticks (deja's exact position, which `monitor goto' takes back), elapsed-time
# (recorded seconds) and deja's `info recording', without `monitor' as rr's scripts type them
break mark
continue
when-ticks
elapsed-time
python t1 = float(gdb.execute("elapsed-time", to_string=True).split()[3])
stepi
stepi
python pos = gdb.execute("when-ticks", to_string=True).split()[2].rstrip(".")
python print("position after 2 stepi: " + pos)
set $pc1 = $pc
continue
elapsed-time
python t2 = float(gdb.execute("elapsed-time", to_string=True).split()[3])
python print("slept %s" % ("0.3 s or more" if t2 - t1 >= 0.3 else "%f s only" % (t2 - t1)))
info recording
python gdb.execute("monitor goto " + pos)
print $pc == $pc1
print counter
python print("same position" if gdb.execute("when-ticks", to_string=True).split()[2].rstrip(".") == pos else "another position")
monitor goto 1/zz
monitor when-ticks extra
delete
continue
