# Traces at any size and traces that cost little disk (issue 11). Included from
# tests/CMakeLists.txt.
foreach(case sparse store known rebuilt damaged big_heap stack_limit disk_full)
  add_test(NAME traces_${case}
    COMMAND ${DEJA_TEST_SCRIPTS}/traces_test.sh $<TARGET_FILE:deja> ${DEJA_TEST_PROGRAMS_DIR}
            ${case})
  set_tests_properties(traces_${case} PROPERTIES TIMEOUT 300)
endforeach()
deja_rr_program_test(sparse_map)
# State points larger than a trace chunk (64 MiB): a preempted thread of a process with
# 80 MiB of written heap. traces_test.sh big_heap also checks that state points of
# that size were recorded (traces_big_heap).
deja_rr_program_test(big_heap_preempt TIMEOUT 300)
# Files shared between processes, written through the file and the mapping, growing and
# shrinking under mappings, mremap over files, madvise and mlock.
foreach(program shared_file_grow shared_file_procs shared_file_reuse mremap_file)
  deja_rr_program_test(${program})
endforeach()
# The stack grows to the same limit in replay (setrlimit runs for real): an overflowing
# recursion faults at the same depth, address and stack pointer.
deja_rr_program_test(stack_growth)
