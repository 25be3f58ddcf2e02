# Hearth — developer entry points (GNU make).
#
#   make run      install missing system packages, build release, serve on 127.0.0.1:8080 (dev mode, ./hearth-data)
#   make test     packages + .venv, make lint, build with warnings as errors, swift test, the end-to-end suite again
#                 on a throwaway PostgreSQL (beside the Python compatibility tests), browser tests (headless Chromium),
#                 CLI contract, then `make fuzz` (Linux)
#   make test-postgres  only the end-to-end suite on a throwaway PostgreSQL cluster (after a build with tests)
#   make fuzz     libFuzzer on the rules parsers and evaluator, then the protobuf decoders, FUZZ_SECONDS (60) each
#   make bench    release build of hearth and hearth-bench, run the benchmarks → Benchmarks/out/latest.md, listen.md, files.md,
#                 transfer.md;  make bench STORE=postgres: PostgreSQL on 1 and 3 nodes beside SQLite → Benchmarks/out/postgres.md
#   make format   swift format in place;  make lint: swift format lint --strict
#
# System packages are listed once, in scripts/packages.txt (.ci/run reads the same list).

SWIFT ?= swift
PYTHON ?= python3
VENV := .venv
# Extra arguments for hearth-bench, e.g. `make bench BENCH_ARGS="--duration 5"`.
BENCH_ARGS ?=
# `make bench STORE=postgres`: the PostgreSQL figures beside SQLite's instead of the usual runs (see `bench`).
STORE ?=
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
# The end-to-end pass on PostgreSQL: the suites whose servers the harness starts (HEARTH_TEST_POSTGRES gives each a
# database of its own) — the end-to-end suite, and the SDK, models, todo and chat suites against a real server —
# less those that start their own PostgreSQL clusters and already ran in the first pass, and those that never reach
# the store (HTTP framing, stalled and too many connections), which the first pass covers for both.
PG_E2E_FILTER := EndToEndTests|HearthSDKTests|HearthModelsTests|HearthTodoTests|HearthChatTests
PG_E2E_SKIP := PostgresNodesTests|PostgresTransactionNodesTests|FramingTests|StalledStreamTests|ConnectionLimitTests

.PHONY: help run test test-postgres fuzz bench format lint deps-run deps-test deps-bench venv release release-bench clean

help:
	@sed -n '3,12p' Makefile | sed 's/^# *//'

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
	@# The end-to-end suite again on PostgreSQL, beside the Python compatibility tests (SwiftPM locks .build, so not
	@# beside the first pass, nor may the Python side call SwiftPM meanwhile): its output goes to
	@# .build/test-postgres.out and is shown once the Python tests end.
	@bin="$$($(SWIFT) build --show-bin-path)"; \
	echo "+ $(MAKE) test-postgres >.build/test-postgres.out 2>&1 &"; \
	$(MAKE) --no-print-directory test-postgres >.build/test-postgres.out 2>&1 & postgres=$$!; \
	echo "+ HEARTH_BINARY=… $(VENV)/bin/python -m pytest Tests/Compatibility"; \
	HEARTH_BINARY="$$bin/hearth" $(VENV)/bin/python -m pytest Tests/Compatibility; \
	python=$$?; wait $$postgres; postgres=$$?; \
	echo "── make test-postgres (.build/test-postgres.out, last lines) ──"; tail -n 60 .build/test-postgres.out; \
	test $$python = 0 && test $$postgres = 0
	@# The console in real headless Chromium (its own run: each folder's conftest is imported as `conftest`).
	HEARTH_BINARY="$$($(SWIFT) build --show-bin-path)/hearth" $(VENV)/bin/python -m pytest Tests/Browser
	@if [ -f $(CONTRACT) ]; then \
		echo "+ bash $(CONTRACT)"; bash $(CONTRACT); \
	else \
		echo "skipping the CLI contract check: $(CONTRACT) not found"; \
	fi
	@if [ "$$(uname)" = Linux ]; then $(MAKE) --no-print-directory fuzz; else echo "skipping the fuzzer: libFuzzer builds need Linux"; fi

# The end-to-end suite with every server the harness starts on a fresh database of a throwaway PostgreSQL cluster
# (scripts/with-postgres.sh: initdb + pg_ctl on a free 127.0.0.1 port, as hearth-pg when root, stopped however the
# run ends). Serial, as the first pass is. Tests of SQLite-only tools are marked `.sqliteOnly(…)`
# (Sources/HearthTesting/EngineTraits.swift).
test-postgres:
	TEST_LOG=.build/test-postgres.log SWIFT=$(SWIFT) scripts/with-postgres.sh \
		scripts/swift-test.sh --no-parallel --filter '$(PG_E2E_FILTER)' --skip '$(PG_E2E_SKIP)'

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

# `make bench STORE=postgres` (or BENCH_ARGS="--store postgres"; make itself takes no `--store`): instead of the runs
# below, the PostgreSQL engine on one and three nodes beside the SQLite engine, in one run, on a throwaway PostgreSQL
# cluster hearth-bench starts → Benchmarks/out/postgres.md. BENCH_ARGS are passed on (e.g. --query-sizes 100000).
bench: deps-bench release-bench
	@mkdir -p Benchmarks/out
	bin="$$($(SWIFT) build -c release --show-bin-path)"; \
	if [ "$(STORE)" = postgres ] || [ -n "$(findstring --store postgres,$(BENCH_ARGS))" ]; then \
		"$$bin/hearth-bench" --hearth "$$bin/hearth" --out Benchmarks/out/postgres.md $(BENCH_ARGS) --store postgres; \
		exit $$?; \
	fi; \
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
