set sysroot /
break 14
continue
print n
print magic
watch ts.tv_sec
continue
delete
break sbuf_watch.c:15
continue
print ts.tv_sec > 1000000000
continue
