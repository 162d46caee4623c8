break on_usr1
continue
print handled
continue
print handled
bt
continue
