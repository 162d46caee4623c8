break 29
continue
print total
continue
