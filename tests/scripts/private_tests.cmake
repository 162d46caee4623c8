# Issue 33: a trace is private whatever the umask; a store that is not private is not used.
add_test(NAME private_trace
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/private_trace_test.sh $<TARGET_FILE:deja>)
set_tests_properties(private_trace PROPERTIES TIMEOUT 120)

# Bad input to every command: a message naming what is wrong and the exit status SPEC.md
# gives, never a crash or a hang.
add_test(NAME bad_input
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/bad_input_test.sh $<TARGET_FILE:deja>
                 ${DEJA_TEST_PROGRAMS_DIR} $<TARGET_FILE:trace_edit>)
set_tests_properties(bad_input PROPERTIES TIMEOUT 300)
