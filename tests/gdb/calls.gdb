break 33
continue
print square(7)
print half(5.0)
print bump(5)
print counter
print note
print (int)strlen("four")
print $_siginfo.si_signo
print counter
print crash(3)
bt
print square(4)
next
print counter
print forever()
continue
