break late
continue
print total
continue
