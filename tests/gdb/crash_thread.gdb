continue
bt
info threads
continue
