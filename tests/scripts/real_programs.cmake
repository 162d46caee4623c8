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
