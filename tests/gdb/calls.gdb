break 33
continue
print square(7)
print half(5.0)
print bump(5)
print counter
print note
print crash(3)
bt
print square(4)
next
print counter
print forever()
continue
