break tick
ignore 1 1000000
break 43
continue
info breakpoints
print total
continue
