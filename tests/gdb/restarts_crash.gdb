# after an abnormal end (a crash, the process killed by it): restart N and run
checkpoint
continue
continue
restart 1
continue
continue
run
bt 1
continue
