# Real programs from the system, recorded and replayed (single-process ones only).
# Included from tests/CMakeLists.txt, which defines deja_rr_test.

deja_rr_test(real_ls COMMAND ls -la /usr/lib)
deja_rr_test(real_date COMMAND date +%s.%N DIFFER)
deja_rr_test(real_sort_random COMMAND sort -R ${DEJA_TEST_DATA_DIR}/words.txt DIFFER)
# Random numbers, wall time, pid, a directory listing and urandom bytes from Python.
# The code avoids ';' (a CMake list separator): one expression over imported modules.
deja_rr_test(real_python3 DIFFER COMMAND /usr/bin/python3 -c
  "(lambda random, time, os: print(random.random(), random.randint(0, 10**9), time.time(), os.getpid(), sorted(os.listdir('/usr')), os.urandom(16).hex()))(*map(__import__, ['random', 'time', 'os']))")
deja_rr_test(real_cat_proc_maps COMMAND cat /proc/self/maps)
deja_rr_test(real_cat_proc_status COMMAND cat /proc/self/status)
deja_rr_test(real_true COMMAND /bin/true)
deja_rr_test(real_false COMMAND /bin/false EXIT 1)
deja_rr_test(real_env COMMAND env)
deja_rr_test(real_uname COMMAND uname -a)
deja_rr_test(real_md5sum COMMAND md5sum ${DEJA_TEST_DATA_DIR}/words.txt)
deja_rr_test(real_find COMMAND find ${CMAKE_CURRENT_SOURCE_DIR}/programs -name "*.c")
deja_rr_test(real_stdin_wc COMMAND wc STDIN ${DEJA_TEST_DATA_DIR}/words.txt)
# Pipelines whose writer outruns its reader: a 128 KiB pipe write cut short by deja's
# context-switch signal returns a partial count, and the rest is written by a traced call
# the library's probe chose; replay used to overwrite that call's record with the
# program's bytes (tests the buffer's record room for input).
deja_rr_test(real_tar_gzip_pipe REPEAT 2
  COMMAND sh -c "tar cf - -C /usr/include linux | gzip -1 | wc -c")
deja_rr_test(real_cat_sort_pipe REPEAT 2
  COMMAND sh -c "find /usr/include/linux -name '*.h' | xargs -P2 -n 40 cat | sort | md5sum")
