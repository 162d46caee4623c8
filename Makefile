# Top-level entry points; the build itself is CMake (build/), the tests CTest.
BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= $(shell nproc)

.PHONY: all deps test fuzz demo bench chaos suites install clean

all: deps $(BUILD)/Makefile
	@$(MAKE) --no-print-directory -C $(BUILD) -j$(JOBS)

deps:
	@scripts/install-deps.sh

$(BUILD)/Makefile: CMakeLists.txt | deps
	@cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null

test: all
	@cd $(BUILD) && ctest -j$(JOBS) --output-on-failure --no-tests=error --timeout 300

# The fuzz targets (tests/fuzz/README.md): a clang build of their own, each target run for
# FUZZ_SECONDS on its corpus, one after the other.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60

fuzz: deps
	@tests/fuzz/need_clang.sh
	@cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DDEJA_FUZZ=ON >/dev/null
	@$(MAKE) --no-print-directory -C $(FUZZ_BUILD) -j$(JOBS) fuzz_targets
	@tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

demo: all
	@scripts/demo.sh $(BUILD)/bin/deja

bench: all
	@scripts/bench.sh $(BUILD)

chaos: all
	@scripts/chaos_bench.sh $(BUILD)

suites: all
	@scripts/suites.sh $(BUILD)

install: all
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
