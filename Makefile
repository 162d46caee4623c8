# Top-level entry points; the build itself is CMake (build/), the tests CTest.
BUILD ?= build
PREFIX ?= /usr/local
JOBS ?= $(shell nproc)

.PHONY: all deps test demo bench chaos install clean

all: deps $(BUILD)/Makefile
	@$(MAKE) --no-print-directory -C $(BUILD) -j$(JOBS)

deps:
	@scripts/install-deps.sh

$(BUILD)/Makefile: CMakeLists.txt | deps
	@cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null

test: all
	@cd $(BUILD) && ctest -j$(JOBS) --output-on-failure --no-tests=error --timeout 300

demo: all
	@scripts/demo.sh $(BUILD)/bin/deja

bench: all
	@scripts/bench.sh $(BUILD)

chaos: all
	@scripts/chaos_bench.sh $(BUILD)

install: all
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
