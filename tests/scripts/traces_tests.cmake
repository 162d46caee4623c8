# Traces at any size and traces that cost little disk (issue 11). Included from
# tests/CMakeLists.txt.
foreach(case sparse store rebuilt damaged)
  add_test(NAME trace_files_${case}
    COMMAND ${DEJA_TEST_SCRIPTS}/trace_files_test.sh $<TARGET_FILE:deja> ${DEJA_TEST_PROGRAMS_DIR}
            ${case})
  set_tests_properties(trace_files_${case} PROPERTIES TIMEOUT 300)
endforeach()
deja_rr_program_test(sparse_map)
