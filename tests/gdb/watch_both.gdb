# watch and awatch on the same bytes: a write triggers both, each counts it
break 12
continue
watch g
awatch g
continue
continue
continue
x/i $pc
reverse-continue
x/i $pc
reverse-continue
x/i $pc
reverse-continue
x/i $pc
