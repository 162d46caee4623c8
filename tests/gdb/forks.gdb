catch fork
catch vfork
catch exec
continue
continue
continue
continue
