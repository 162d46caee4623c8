# LLDB (Debian's lldb-22) against deja replays: `deja replay --debugger lldb-22` starts
# it connected through the gdb remote protocol (scripts/lldb_replay_test.sh). The
# programs are gdb_tests.cmake's; commands in tests/lldb/NAME.lldb, the patterns LLDB's
# output must show, in order, in tests/lldb/NAME.expect. Skipped without lldb-22.
set(DEJA_LLDB_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/lldb)
function(deja_lldb_test name program)
  add_test(NAME lldb_${name}
    COMMAND sh ${DEJA_TEST_SCRIPTS}/lldb_replay_test.sh --deja $<TARGET_FILE:deja>
            --lldb lldb-22 --program $<TARGET_FILE:gdb_program_${program}>
            --commands ${DEJA_LLDB_TEST_DIR}/${name}.lldb
            --expect ${DEJA_LLDB_TEST_DIR}/${name}.expect)
  set_tests_properties(lldb_${name} PROPERTIES TIMEOUT 200 SKIP_RETURN_CODE 77)
endfunction()

deja_lldb_test(watch_reverse watchpoints)
deja_lldb_test(threads_reverse threads)

# VS Code's way in: lldb-dap (the Debug Adapter Protocol server of LLDB 22) attached to
# `deja replay -s unix:SOCK`, driven by a script as an editor would (scripts/dap_test.py):
# a breakpoint, the stack and a variable at it, a run to the end.
add_test(NAME dap_lldb_breakpoint
  COMMAND python3 ${DEJA_TEST_SCRIPTS}/dap_test.py $<TARGET_FILE:deja> lldb-dap-22
          $<TARGET_FILE:gdb_program_watchpoints> ${CMAKE_CURRENT_SOURCE_DIR}/gdb/watchpoints.c
          13 watched 3)
set_tests_properties(dap_lldb_breakpoint PROPERTIES TIMEOUT 200 SKIP_RETURN_CODE 77)

# VS Code's Midas (made for rr) with its rr path set to deja: what it runs (ls, ps,
# gdbinit, replay -h -s -p/-f -k) and the answers it parses (rr's info checkpoints table,
# qRRCmd packets), through a real gdb (scripts/rr_compat_test.sh).
add_test(NAME gdb_rr_compat
  COMMAND sh ${DEJA_TEST_SCRIPTS}/rr_compat_test.sh $<TARGET_FILE:deja>
          $<TARGET_FILE:gdb_program_reverse> ${CMAKE_CURRENT_SOURCE_DIR}/gdb/reverse.c)
set_tests_properties(gdb_rr_compat PROPERTIES TIMEOUT 200)
