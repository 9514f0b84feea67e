# The README's commands. Each installs what it needs on a fresh Debian machine with Swift.
SWIFT ?= swift
SOURCES := Package.swift Sources Plugins Tests Benchmarks/Package.swift Benchmarks/TetherBenchmarks \
  Examples/Notes/Package.swift Examples/Notes/Sources Examples/Notes/Tests
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SHELL := /bin/bash
TEST_LOG := .build/test-output.log

.PHONY: deps test-deps bench-deps lint test soak asan asan-build format demo bench docs

APT := $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get

# libinotifytools backs the file watcher (Debian ships it without a pkg-config file).
deps:
	@dpkg -s libinotifytools0-dev >/dev/null 2>&1 || { \
	  echo "installing libinotifytools0-dev"; $(APT) update -q && $(APT) install -y -q libinotifytools0-dev; }

# The watcher tests also save with vim, which renames over the file outside /tmp. The
# PostgreSQL tests start their own throwaway servers (never one here) with the postgresql
# package's binaries, and put them on other "hosts" with iproute2's network namespaces.
test-deps: deps
	@command -v vim >/dev/null 2>&1 || { \
	  echo "installing vim"; $(APT) update -q && $(APT) install -y -q vim; }
	@dpkg -s postgresql >/dev/null 2>&1 || { \
	  echo "installing postgresql"; $(APT) update -q && $(APT) install -y -q postgresql; }
	@command -v ip >/dev/null 2>&1 || { \
	  echo "installing iproute2"; $(APT) update -q && $(APT) install -y -q iproute2; }

lint:
	$(SWIFT) format lint --strict --recursive $(SOURCES)

# The whole suite. The in-process concurrency tests run again in a release build, where the
# optimiser could hide (or cause) an overlapping access or a race that a debug build catches, in
# `make soak` (20 times): a release build of the package compiles PostgreSQL's client with its two
# copies of BoringSSL, and would double the time `make test` takes.
CONCURRENCY_SUITES := WithLockTests|LoadRaceTests|CrossKeyReadTests|RekeyObservationTests|TetherTests.TransactionTests
# A failing run ends by repeating its failures, so the tail of a long log names them. Last, the
# example app's package (Examples/Notes, its own build folder), which drives the built `notes`.
NOTES_LOG := .build/notes-test-output.log
test: test-deps lint
	@mkdir -p .build
	@set -o pipefail; $(SWIFT) test --parallel 2>&1 | tee $(TEST_LOG) || { \
	  echo "--- failures:"; grep "✘" $(TEST_LOG) | grep -v "known issue"; exit 1; }
	@set -o pipefail; $(SWIFT) test --package-path Examples/Notes 2>&1 | tee $(NOTES_LOG) || { \
	  echo "--- failures:"; grep "✘" $(NOTES_LOG) | grep -v "known issue"; exit 1; }

# The contention and race tests at full size (8 processes × 1,000 saves on one defaults file,
# three times; 8 processes × 500 transactions of one file key, of one defaults key and of one
# PostgreSQL row; editors racing the app for 30 s; two processes rallying one file key, defaults
# key and row for 10,000, 10,000 and 4,000 strokes; holders answering 10,000 edits the instant
# they show, 1,000 of a row); `make test` runs them small. Then 1,000 file and 1,000 defaults
# bootstraps under LeakSanitizer, which fails the run if anything they made is left unreachable.
SOAK_SUITES := DefaultsContentionTests|DefaultsConflictTests|InPlaceEditorTests|FileTransactionTests|DefaultsTransactionTests|PostgresProcessTests|RallyTests|EditAnswerTests|WrappingKeyTests
LEAK_SUITES := ScopeLifetimeTests
# Then the in-process concurrency tests 20 times, in debug and in release builds, and last the
# whole suite under AddressSanitizer (`make asan`).
soak: test-deps asan-build
	TETHER_SOAK=1 $(SWIFT) test --filter "$(SOAK_SUITES)"
	TETHER_SOAK=1 $(ASAN_RUN) $(SWIFT) test --skip-build $(ASAN_BUILD) --filter "$(LEAK_SUITES)"
	$(SWIFT) build --build-tests && $(SWIFT) build -c release --build-tests
	@for run in $$(seq 20); do for config in debug release; do \
	  $(SWIFT) test -c $$config --skip-build --filter "$(CONCURRENCY_SUITES)" \
	    > .build/soak-concurrency.log 2>&1 || { \
	    echo "concurrency run $$run ($$config) failed:"; grep "✘" .build/soak-concurrency.log; exit 1; }; \
	done; done; echo "concurrency suites: 20 runs each in debug and release, all passed"
	@$(MAKE) --no-print-directory asan

# A build of its own (never committed: .gitignore has .build*/), with LeakSanitizer on, as it is
# with ASan on Linux; its reports name the leak's allocation, not who kept it. TETHER_ASAN=1
# runs the heaviest tests smaller (ASan.size in Tests/TetherTestHelperSupport). Swift's crash
# backtracer is off: under ASan the one a child stopped at an assertion launches
# (ChangeInsideChangeTests) outlived the child, blocked for good, holding the child's pipes,
# and the run waited on it (the Swift project disables its crash tests under ASan,
# swiftlang/swift#64567). Crashes still print their message. At most 12 tests run at once
# (swift-testing's experimental width; a test's time limit starts when it runs): all ~560 at
# once under ASan on 2 cores kept tests that had started from running for minutes, past their
# time limits, in every run.
ASAN_BUILD := -c debug -Xswiftc -sanitize=address --scratch-path .build-asan
ASAN_RUN := TETHER_ASAN=1 SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=12
ASAN_LOG := .build/asan-output.log

asan-build: deps
	$(SWIFT) build --build-tests $(ASAN_BUILD)

# The whole suite under AddressSanitizer and LeakSanitizer (a child process's report is in the
# failure of the test that ran it). Like `make test`, a failing run ends by naming its failures.
asan: test-deps asan-build
	@mkdir -p .build
	@set -o pipefail; $(ASAN_RUN) $(SWIFT) test --skip-build $(ASAN_BUILD) --parallel 2>&1 \
	  | tee $(ASAN_LOG) || { \
	  echo "--- failures:"; grep -E "✘|ERROR: (Address|Leak)Sanitizer" $(ASAN_LOG) | grep -v "known issue"; exit 1; }

format:
	$(SWIFT) format format --in-place --recursive --parallel $(SOURCES)

# The counter-and-favourite-facts demo, with its data in your XDG folders.
demo: deps
	$(SWIFT) build --product tether
	$(SWIFT) run --skip-build tether demo --config Config/tether.conf

# The documentation of every library product, with DocC (swift-docc-plugin), warnings as errors
# (a broken symbol link is one): archives in .build/plugins/Swift-DocC/outputs/. Then every
# public symbol of those modules must have a doc comment: Scripts/check-doc-comments.py reads
# the symbol graphs and lists each one that has none. The modules are the library products'.
docs: deps
	@set -e; targets=$$(python3 Scripts/check-doc-comments.py --swift $(SWIFT) --list-modules); \
	  $(SWIFT) package generate-documentation --warnings-as-errors $$(printf -- '--target %s ' $$targets)
	python3 Scripts/check-doc-comments.py --swift $(SWIFT)

# The PostgreSQL benchmarks run a throwaway server of their own (Benchmarks/report.py).
bench-deps: deps
	@dpkg -s postgresql >/dev/null 2>&1 || { \
	  echo "installing postgresql"; $(APT) update -q && $(APT) install -y -q postgresql; }

# The benchmarks (a separate package in Benchmarks/, built in release by its plugin), run 3
# times: each row of the table is a same-run ratio, shown as its range over the runs.
bench: bench-deps
	python3 Benchmarks/report.py
