break 28
continue
print total > 0
continue
