break *done
continue
reverse-stepi
print other
delete
watch -l other
reverse-continue
print other
continue
print other
