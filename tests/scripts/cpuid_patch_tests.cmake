# cpuid answered in the program interpreter without a trap (src/task/cpuid_patch.h):
# cpuid_ldso prints what ld.so learnt from cpuid; rr_cpuid_ldso records and replays it as
# every program is, cpuid_patch compares it with a recording that traps every cpuid, with
# the site cache cold, warm and corrupt.
deja_rr_program_test(cpuid_ldso)
add_test(NAME cpuid_patch COMMAND ${DEJA_TEST_SCRIPTS}/cpuid_patch_test.sh $<TARGET_FILE:deja>
  $<TARGET_FILE:cpuid_ldso>)
set_tests_properties(cpuid_patch PROPERTIES TIMEOUT 180)
