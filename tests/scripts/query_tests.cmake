# deja query (src/query/): writes, calls and output queries over recordings of
# tests/programs/query_target.c checked against its known writes, calls and output;
# `deja replay -g POS' and the monitor commands in gdb; bad input (query_test.py);
# tests/programs/query_many.c's thousands of calls, logged in the task (query_many);
# query_calls_preempt.c's calls across state points (preempt_calls); C++ names (cpp).
deja_rr_program_test(query_target)
deja_rr_program_test(query_preempt)
deja_rr_program_test(query_many)
deja_rr_program_test(query_calls_preempt)
foreach(case writes threads fork calls output goto monitor bad nohw preempt many preempt_calls cpp)
  add_test(NAME query_${case}
    COMMAND python3 ${DEJA_TEST_SCRIPTS}/query_test.py ${case} $<TARGET_FILE:deja>
            ${DEJA_TEST_PROGRAMS_DIR}/query_target)
  set_tests_properties(query_${case} PROPERTIES TIMEOUT 300)
endforeach()
