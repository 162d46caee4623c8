break demo_value
continue
print sizeof(struct demo_shape)
print demo_name
delete
print demo_value()
info sharedlibrary
info proc mappings
continue
