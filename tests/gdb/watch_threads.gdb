break main
continue
watch shared
continue
print $_thread > 1
continue
reverse-continue
print shared
reverse-continue
print shared
continue
continue
continue
