# Hearth — developer entry points (GNU make).
#
#   make run      install missing system packages, build release, serve on 127.0.0.1:8080 (dev mode, ./hearth-data)
#   make test     packages + .venv, make lint, build with warnings as errors, swift test, Python compatibility,
#                 browser tests (headless Chromium), CLI contract, then `make fuzz` (Linux)
#   make fuzz     libFuzzer on the rules parsers and evaluator, then the protobuf decoders, FUZZ_SECONDS (60) each
#   make bench    release build of hearth and hearth-bench, run the benchmarks → Benchmarks/out/latest.md, listen.md, files.md,
#                 transfer.md
#   make format   swift format in place;  make lint: swift format lint --strict
#
# System packages are listed once, in scripts/packages.txt (.ci/run reads the same list).

SWIFT ?= swift
PYTHON ?= python3
VENV := .venv
# Extra arguments for hearth-bench, e.g. `make bench BENCH_ARGS="--duration 5"`.
BENCH_ARGS ?=
# How long `make fuzz` (and so `make test`) runs the rules fuzzer.
FUZZ_SECONDS ?= 60
FUZZ_BUILD := .build-fuzz
# Extra arguments for the live-listener figures, e.g. `make bench LISTEN_BENCH_ARGS="--listeners 2000"`.
LISTEN_BENCH_ARGS ?=
# Extra arguments for the file figures (256 MiB, 3 rounds, 1,000 small files by default), e.g.
# `make bench FILES_BENCH_ARGS="--files-mib 64 --small-files 200"`.
FILES_BENCH_ARGS ?=
# Extra arguments for the export/import figures (1,000,000 documents by default), e.g.
# `make bench TRANSFER_BENCH_ARGS="--documents 100000"`.
TRANSFER_BENCH_ARGS ?=
WERROR := -Xswiftc -warnings-as-errors
FORMAT_DIRS := $(wildcard Sources Tests Benchmarks Examples)
CONTRACT := ../shared/contract/cli-contract.sh

.PHONY: help run test fuzz bench format lint deps-run deps-test deps-bench venv release release-bench clean

help:
	@sed -n '3,6p' Makefile | sed 's/^# *//'

# ── system packages ──
deps-run:
	@scripts/install-packages.sh build

deps-test:
	@scripts/install-packages.sh build test

deps-bench:
	@scripts/install-packages.sh build bench

# ── Python virtualenv for interoperability tests (firebase-admin and friends) ──
venv: $(VENV)/.requirements-installed

$(VENV)/.requirements-installed: scripts/requirements-test.txt
	@test -x $(VENV)/bin/python || { echo "+ $(PYTHON) -m venv $(VENV)"; $(PYTHON) -m venv $(VENV); }
	$(VENV)/bin/python -m pip install --disable-pip-version-check -q -r scripts/requirements-test.txt
	@touch $@

# ── builds ──
release:
	$(SWIFT) build -c release --product hearth

release-bench:
	$(SWIFT) build -c release --product hearth
	$(SWIFT) build -c release --product hearth-bench

# ── entry points ──
run: deps-run release
	"$$($(SWIFT) build -c release --show-bin-path)/hearth" serve --host 127.0.0.1 --port 8080 --data ./hearth-data --dev

test: deps-test venv lint
	$(SWIFT) build --build-tests $(WERROR)
	@# Serial: with everything in parallel on a 2-core machine, some test blocks Swift's cooperative thread pool
	@# and unrelated suites stall for ~20 s until their harness timeouts fire (seen once in CI); serial takes ~50 s.
	SWIFT=$(SWIFT) scripts/swift-test.sh --no-parallel
	HEARTH_BINARY="$$($(SWIFT) build --show-bin-path)/hearth" $(VENV)/bin/python -m pytest Tests/Compatibility
	@# The console in real headless Chromium (its own run: each folder's conftest is imported as `conftest`).
	HEARTH_BINARY="$$($(SWIFT) build --show-bin-path)/hearth" $(VENV)/bin/python -m pytest Tests/Browser
	@if [ -f $(CONTRACT) ]; then \
		echo "+ bash $(CONTRACT)"; bash $(CONTRACT); \
	else \
		echo "skipping the CLI contract check: $(CONTRACT) not found"; \
	fi
	@if [ "$$(uname)" = Linux ]; then $(MAKE) --no-print-directory fuzz; else echo "skipping the fuzzer: libFuzzer builds need Linux"; fi

# The rules fuzzer under libFuzzer (Linux: -sanitize=fuzzer; lld from the Swift toolchain, gold crashes on libFuzzer's
# objects), in its own scratch path since the sanitizer changes every object. It starts from Fuzz/corpus plus what
# earlier runs found, and fails on a crash, a leak, an input slower than 5 s or 2 GB of memory; the input is saved
# under $(FUZZ_BUILD)/ and replays with the normal build's `hearth-rules-fuzz FILE`.
#
# The protobuf fuzzer (`hearth-proto-fuzz`, docs/grpc.md) runs the same way on the Firestore request decoders, from
# Fuzz/proto-corpus (messages the Python protobuf runtime wrote), for FUZZ_SECONDS too.
fuzz:
	$(SWIFT) build --scratch-path $(FUZZ_BUILD) --product hearth-rules-fuzz \
		-Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING -Xswiftc -use-ld=lld
	$(SWIFT) build --scratch-path $(FUZZ_BUILD) --product hearth-proto-fuzz \
		-Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING -Xswiftc -use-ld=lld
	@mkdir -p $(FUZZ_BUILD)/corpus && cp Fuzz/corpus/* $(FUZZ_BUILD)/corpus/
	@mkdir -p $(FUZZ_BUILD)/proto-corpus && cp Fuzz/proto-corpus/* $(FUZZ_BUILD)/proto-corpus/
	@# The two fuzzers at once, one core each: the run takes FUZZ_SECONDS, not twice that. Either failing fails it.
	$(FUZZ_BUILD)/debug/hearth-proto-fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=5 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/proto- $(FUZZ_BUILD)/proto-corpus \
		> $(FUZZ_BUILD)/proto-fuzz.log 2>&1 & proto=$$!; \
	$(FUZZ_BUILD)/debug/hearth-rules-fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=5 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/ $(FUZZ_BUILD)/corpus; rules=$$?; \
	wait $$proto; proto=$$?; \
	echo "── hearth-proto-fuzz ──"; tail -n 40 $(FUZZ_BUILD)/proto-fuzz.log; \
	test $$rules = 0 && test $$proto = 0

bench: deps-bench release-bench
	@mkdir -p Benchmarks/out
	bin="$$($(SWIFT) build -c release --show-bin-path)"; \
		"$$bin/hearth-bench" --hearth "$$bin/hearth" --out Benchmarks/out/latest.md $(BENCH_ARGS) && \
		"$$bin/hearth-bench" listen --hearth "$$bin/hearth" --out Benchmarks/out/listen.md $(LISTEN_BENCH_ARGS) && \
		"$$bin/hearth-bench" files --hearth "$$bin/hearth" --out Benchmarks/out/files.md --files-mib 256 --rounds 3 \
			$(FILES_BENCH_ARGS) && \
		"$$bin/hearth-bench" transfer --hearth "$$bin/hearth" --out Benchmarks/out/transfer.md $(TRANSFER_BENCH_ARGS)

format:
	$(SWIFT) format format --in-place --recursive --parallel $(FORMAT_DIRS)

lint:
	$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_DIRS)

clean:
	rm -rf .build $(FUZZ_BUILD) Benchmarks/out
