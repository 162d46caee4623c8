# a stepi from a signal's delivery stop enters its handler; reverse-stepi comes back to
# the delivery stop, stepi enters the handler again, and the replay goes on to the end
continue
stepi
print $pc == on_usr1
stepi
reverse-stepi
reverse-stepi
print got
stepi
print $pc == on_usr1
continue
print got
continue
