break square
continue
print x
finish
continue
