#!/bin/sh
# The code style gate run by .ci/run: every C file formatted as .clang-format says, and no
# cppcheck warnings. Prints the offending files and exits non-zero otherwise.
# Fix formatting with: find src tests -name '*.[ch]' | xargs clang-format -i
set -u
cd "$(dirname "$0")/.."
status=0
files=$(find src tests -name '*.[ch]' | sort)
unformatted=""
for f in $files; do
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
    unformatted="$unformatted $f"
  fi
done
if [ -n "$unformatted" ]; then
  echo "check-style: not formatted per .clang-format (run clang-format -i on them):" >&2
  for f in $unformatted; do echo "  $f" >&2; done
  status=1
fi
if ! cppcheck --quiet --enable=warning,portability,performance --std=c11 -I src \
    --suppress=missingIncludeSystem --inline-suppr --error-exitcode=1 -j2 \
    src tests/unit tests/programs tests/gdb tests/tools tests/fuzz; then
  echo "check-style: cppcheck found the problems above" >&2
  status=1
fi
[ $status = 0 ] && echo "check-style: formatting and cppcheck clean"
exit $status
