break main
continue
print 1+1
continue
