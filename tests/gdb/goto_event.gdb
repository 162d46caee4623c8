monitor when
continue
