# a watched buffer read() writes (the kernel with -n, the system call buffer's copy of the
# recorded bytes with the buffer on): forwards each read stops gdb in read's frame, after
# the write; backwards before it, with the old value back
break main
continue
watch -l inbuf
continue
print marker
bt
continue
print marker
reverse-continue
print marker
print inbuf
bt
reverse-continue
print marker
print inbuf
reverse-continue
print marker
