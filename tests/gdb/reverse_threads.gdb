break 25
continue
watch -l sums[1]
reverse-continue
print index
print sums[1]
continue
print sums[1]
delete
break 25
continue
watch -l sums[0]
reverse-continue
print index
print sums[0]
delete
continue
