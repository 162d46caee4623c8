break main
continue
info inferiors
info proc
python print("$1 = %d" % gdb.selected_inferior().pid)
continue
