# Hearth — developer entry points (GNU make).
#
#   make run      install missing system packages, build release, serve on 127.0.0.1:8080 (dev mode, ./hearth-data)
#   make test     packages + .venv, build with warnings as errors, swift test, Python compatibility, CLI contract
#   make bench    release build of hearth and hearth-bench, run the benchmarks → Benchmarks/out/latest.md, listen.md
#   make format   swift format in place;  make lint: swift format lint --strict
#
# System packages are listed once, in scripts/packages.txt (.ci/run reads the same list).

SWIFT ?= swift
PYTHON ?= python3
VENV := .venv
# Extra arguments for hearth-bench, e.g. `make bench BENCH_ARGS="--duration 5"`.
BENCH_ARGS ?=
# Extra arguments for the live-listener figures, e.g. `make bench LISTEN_BENCH_ARGS="--listeners 2000"`.
LISTEN_BENCH_ARGS ?=
WERROR := -Xswiftc -warnings-as-errors
FORMAT_DIRS := $(wildcard Sources Tests Benchmarks Examples)
CONTRACT := ../shared/contract/cli-contract.sh

.PHONY: help run test bench format lint deps-run deps-test deps-bench venv release release-bench clean

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

test: deps-test venv
	$(SWIFT) build --build-tests $(WERROR)
	@# Serial: with everything in parallel on a 2-core machine, some test blocks Swift's cooperative thread pool
	@# and unrelated suites stall for ~20 s until their harness timeouts fire (seen once in CI); serial takes ~50 s.
	SWIFT=$(SWIFT) scripts/swift-test.sh --no-parallel
	HEARTH_BINARY="$$($(SWIFT) build --show-bin-path)/hearth" $(VENV)/bin/python -m pytest Tests/Compatibility
	@if [ -f $(CONTRACT) ]; then \
		echo "+ bash $(CONTRACT)"; bash $(CONTRACT); \
	else \
		echo "skipping the CLI contract check: $(CONTRACT) not found"; \
	fi

bench: deps-bench release-bench
	@mkdir -p Benchmarks/out
	bin="$$($(SWIFT) build -c release --show-bin-path)"; \
		"$$bin/hearth-bench" --hearth "$$bin/hearth" --out Benchmarks/out/latest.md $(BENCH_ARGS) && \
		"$$bin/hearth-bench" listen --hearth "$$bin/hearth" --out Benchmarks/out/listen.md $(LISTEN_BENCH_ARGS)

format:
	$(SWIFT) format format --in-place --recursive --parallel $(FORMAT_DIRS)

lint:
	$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_DIRS)

clean:
	rm -rf .build Benchmarks/out
