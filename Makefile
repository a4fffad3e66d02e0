# vtick: the two commands of the README, plus helpers.
MAKEFLAGS += --no-print-directory
BUILD ?= build
JOBS  ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
# Profile-guided optimisation (CMakeLists.txt VTICK_PGO): an instrumented build in
# $(BUILD)-train runs the shipped workloads first (scripts/pgo-train.sh), and $(BUILD) is
# optimised from its profiles. PGO=0 skips it (a quicker build to iterate on, ~25 % slower runs).
PGO ?= 1
TRAIN = $(BUILD)-train

.PHONY: demo test test-sanitize test-sanitize-ci deps pgo-train configure build bench validate clean

deps:
	@scripts/install-deps.sh

ifeq ($(PGO),1)
configure: deps pgo-train
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DVTICK_PGO=use -DVTICK_PGO_DIR=$(abspath $(TRAIN))/pgo-profile >/dev/null
else
configure: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DVTICK_PGO=off >/dev/null
endif

pgo-train: deps
	@scripts/pgo-train.sh $(TRAIN) $(JOBS)

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer + UBSan, in its own build directory. SimGrid's
# actors on thread contexts (VTICK_SG_CFG, core/sg.hpp): its default raw contexts switch
# stacks behind ASan's back (false stack-use-after-scope, LeakSanitizer crashing at exit).
# Left out: the fuzz test (a sanitizer build of its own, scripts/fuzz.sh); the address-space
# limit test (ASan itself needs terabytes of address space for its shadow: under ulimit -v
# the binary cannot start); the slurm tests (daemons, not vtick code); the valgrind test
# (valgrind cannot run an ASan binary).
# The whole suite under ASan took 52 min on this machine (2 cores, a fuzzer beside it); the
# CI subset (test-sanitize-ci) leaves out the nine tests that took over a minute each
# there (1007 s .. 74 s: the same model code run longer, not other code): a terminal
# run's progress, calibrate's two searches, the local-stretch equivalence runs and the
# eight-vCPU determinism run (539 s in CI's run of stop 53), the fast validation suite,
# explain's kill-and-resume, the A1.Flex.2 OLTP band; and the three generated-block checks
# that rerun the model for docs (92, 69, 47 s there: README's demo excerpt, story 3's
# report, the validation-suite table; their model code runs in the plain suite's tests).
SAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SAN_SKIP = ^fuzz\.|^slurm\.|^valgrind\.|address-space limit
SAN_SLOW = |^run: progress on a terminal|^calibrate's default search|^calibrate --fit searches|^local stretches change no result|^local stretches: an eight-vCPU run|^validate-suite: the fast cases|^explain: a search killed|^band: VM.Standard.A1.Flex.2 OLTP|^scripts\.validation_suite_block_is_current|^scripts\.story3_report_block_is_current|^scripts\.readme_demo_excerpt_is_current
test-sanitize-ci:
	@$(MAKE) test-sanitize SAN_SKIP="$(SAN_SKIP)$(SAN_SLOW)"
test-sanitize: deps
	@cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS="$(SAN_FLAGS)" \
	  -DCMAKE_C_FLAGS="$(SAN_FLAGS)" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
	@cmake --build build-sanitize -j $(JOBS)
	@cd build-sanitize && VTICK_SG_CFG=contexts/factory:thread ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS) -E "$(SAN_SKIP)"


validate: build
	@$(BUILD)/cli/vtick validate-suite

bench: build
	@$(BUILD)/bench/vtick_bench

clean:
	rm -rf $(BUILD) $(TRAIN)
