#!/bin/sh
# `make fuzz` needs clang and its libFuzzer runtime (Debian: clang, libclang-rt-N-dev of
# the same version N). Exits 0 when a fuzzer links, else names the packages to install.
set -u
dir=$(mktemp -d "${TMPDIR:-/tmp}/deja-need-clang.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
if ! command -v clang >/dev/null 2>&1; then
    echo "make fuzz: clang is not installed (apt-get install clang, then libclang-rt-N-dev of its version N)" >&2
    exit 1
fi
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; return (int)(n & 0); }' \
    >"$dir/f.c"
if ! clang -fsanitize=fuzzer,address,undefined "$dir/f.c" -o "$dir/f" 2>/dev/null; then
    v=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
    echo "make fuzz: clang $v cannot link a fuzzer: install its runtime (apt-get install libclang-rt-$v-dev)" >&2
    exit 1
fi
