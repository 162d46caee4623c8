# rdtsc patched into traps where the kernel does not trap it (src/task/tsc_patch.h):
# rdtsc_code runs rdtsc/rdtscp in a loop (2 x 1000), in a forked child (2 x 1000), in
# code mapped from a file and in code made executable by mprotect; rr_rdtsc_code records
# and replays it as every program is, this test checks the trace's note and forces
# patching (DEJA_TSC_PATCH=1) so that it is tested on machines that trap rdtsc too.
add_test(NAME tsc_patch COMMAND ${DEJA_TEST_SCRIPTS}/tsc_patch_test.sh $<TARGET_FILE:deja>
  $<TARGET_FILE:tsc_traps> 4000 $<TARGET_FILE:rdtsc_code>)
set_tests_properties(tsc_patch PROPERTIES TIMEOUT 180)
