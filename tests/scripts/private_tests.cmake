# Issue 33: a trace is private whatever the umask; a store that is not private is not used.
add_test(NAME private_trace
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/private_trace_test.sh $<TARGET_FILE:deja>)
set_tests_properties(private_trace PROPERTIES TIMEOUT 120)
