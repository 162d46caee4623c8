continue
bt
continue
