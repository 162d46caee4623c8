break scale
continue
info registers rip
print $fs_base != 0
print/x $fs_base
print $xmm0
print $xmm0.v2_double[0]
print $ymm0
x/4xb &known_bytes
print greeting
print message
info sharedlibrary
finish
continue
