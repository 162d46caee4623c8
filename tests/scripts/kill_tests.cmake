# Issue 33: a killed recorder or replayer leaves nothing running (tests/scripts/kill_test.sh
# with tests/programs/kill_tree.c): each signal to `deja record` with each tree shape
# (threads, a forked child and a setsid'ed daemon; the same in a PID namespace; a program
# deaf to SIGINT/TERM/HUP), and to `deja replay -s` and `deja replay` with its own gdb.
foreach(sig KILL TERM INT HUP)
  foreach(shape tree pidns deaf)
    add_test(NAME kill_record_${sig}_${shape}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/kill_test.sh $<TARGET_FILE:deja>
                     $<TARGET_FILE:kill_tree> record ${sig} ${shape})
    set_tests_properties(kill_record_${sig}_${shape} PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77)
  endforeach()
  foreach(target replay replay-gdb)
    add_test(NAME kill_${target}_${sig}
             COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/kill_test.sh $<TARGET_FILE:deja>
                     $<TARGET_FILE:kill_tree> ${target} ${sig} tree)
    set_tests_properties(kill_${target}_${sig} PROPERTIES TIMEOUT 180)
  endforeach()
endforeach()

# Signals deja's caller ignored stay ignored for the recorded and the replayed program.
add_test(NAME inherited_signals
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/inherited_signals_test.sh $<TARGET_FILE:deja>)
set_tests_properties(inherited_signals PROPERTIES TIMEOUT 60)
