break 63
continue
print total
print seen != 0
continue
