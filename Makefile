# IndoorLab — the two commands:  make demo  (the tournament and its plots)   make test  (every test)
SWIFT        ?= swift
APT_PACKAGES := libgsl-dev libplplot-dev plplot-driver-cairo libsqlite3-dev libavahi-compat-libdnssd-dev python3 chromium curl
SEEDS        ?= 10
BIN          := .build/release/indoorlab
# The real datasets, when present next to the repository, join the tournament (docs/tournament.md, "Real protocols").
DATASETS     ?= ../shared/datasets
REAL         := $(if $(wildcard $(DATASETS)/uji-ble-geo $(DATASETS)/danis-ble-tracks),--real $(DATASETS),)

PREFIX       ?= /usr/local

.PHONY: all deps build demo demo-run check-results test test-slurm test-dnssd docs bench bench-memory plots clean install install-files fuzz fuzz-build

all: build

# Installs the Debian packages the C targets need, only those missing, without questions.
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" -eq 0 ]; then SUDO=""; \
	  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	  else echo "error: missing Debian packages:$$missing; install them as root: apt-get install$$missing" >&2; exit 1; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@# The live service's independent client in the tests (Tests/live/live_client.py) is Python with PyPI's websockets.
	@python3 -c 'import websockets' 2>/dev/null || { echo "installing Python's websockets (PyPI)"; \
	  python3 -m pip install -q websockets 2>/dev/null || python3 -m pip install -q --break-system-packages websockets; }

build: deps
	$(SWIFT) build -c release --product indoorlab

# The main job: validate the bundled scenarios, run the tournament, write results (docs/results.md, docs/coverage.md)
# and plots.
demo: build
	$(MAKE) --no-print-directory demo-run BIN=$(BIN)

# make demo's steps, with the binary BIN.
demo-run:
	$(BIN) validate Scenarios/*.yaml Scenarios/large/*.yaml
	$(BIN) compare --seeds $(SEEDS) --conditions ideal,field $(REAL) --out out/compare --plots Plots --report docs/results.md
	$(BIN) coverage --seeds 5 --estimator offset-learning,particle-filter --report docs/coverage.md
	$(BIN) plot offset-learning --out-dir Plots
	$(BIN) plan open-hall --target-p90 2 --coverage 0.9 -o out/open-hall-planned.yaml --plots Plots
	rm -rf out/sweep-open-hall-sigma
	$(BIN) sweep Scenarios/sweeps/open-hall-sigma.yaml --out out/sweep-open-hall-sigma --plots Plots
	$(BIN) replay --strict --junit out/replay-junit.xml Recordings/*.sqlite

# The committed results are what the code produces: make demo's steps again (with the real datasets beside the clone),
# then fail if docs/results.md, docs/coverage.md, a plot or a recording's baselines changed, or if README's headline
# table left the results. It runs the test build's binary (optimised as make build's, with testing enabled: the same
# outputs), so that after make test, as in CI, no second build is needed.
check-results: deps
	@test -n "$(REAL)" || { echo "error: check-results needs the real datasets (uji-ble-geo, danis-ble-tracks) in $(DATASETS): the committed results include them" >&2; exit 2; }
	$(SWIFT) build $(TEST_FLAGS) --product indoorlab
	$(MAKE) --no-print-directory demo-run BIN=$(TEST_BIN)
	scripts/results-check

# The tests run optimised (testable imports need -enable-testing): 375 tests in 50–120 s on this project's 2-core machines,
# against 31 min unoptimised. Their own scratch path keeps `make build`'s release products from being rebuilt with other flags.
TEST_FLAGS := -c release -Xswiftc -enable-testing --scratch-path .build/tests
TEST_BIN   := .build/tests/release/indoorlab
test: deps
	$(SWIFT) build --build-tests $(TEST_FLAGS)
	$(SWIFT) test --skip-build $(TEST_FLAGS)
	SWIFT=$(SWIFT) scripts/docs-check
	$(MAKE) --no-print-directory test-slurm
	$(MAKE) --no-print-directory test-dnssd

# The live service's DNS-SD advertisement found by avahi-browse, inside network namespaces the script makes, with
# avahi-daemon (and D-Bus when missing) started there (root; docs/live.md, "Discovery").
test-dnssd:
	@if [ "$$(id -u)" -eq 0 ]; then scripts/dnssd-test $(TEST_BIN); \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo -n scripts/dnssd-test $(TEST_BIN); \
	else echo "test-dnssd: NOT RUN: it needs root for network namespaces and avahi-daemon (run: sudo make test-dnssd)" >&2; fi

# A sweep through a real single-node Slurm that the script starts (root: it installs slurm-wlm and munge when missing
# and starts munged, slurmctld and slurmd; docs/sweeps.md). Without root it says it did not run.
test-slurm:
	@if [ "$$(id -u)" -eq 0 ]; then scripts/slurm-test $(TEST_BIN); \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo -n scripts/slurm-test $(TEST_BIN); \
	else echo "test-slurm: NOT RUN: it needs root to start a Slurm cluster (run: sudo make test-slurm)" >&2; fi

# IndoorLocator's DocC documentation, checked (every public symbol documented, no broken link: warnings are errors)
# and written as a static site to .build/docs/site; serve it with `python3 -m http.server -d .build/docs/site` and
# open http://localhost:8000/documentation/indoorlocator.
docs: deps
	SWIFT=$(SWIFT) scripts/docs-check

# Installs the tool and the bundled scenarios: PREFIX/bin/indoorlab finds PREFIX/share/indoorlab/Scenarios.
# The binary links the Swift runtime of the toolchain that built it (and libgsl, libplplot, libsqlite3).
install: build
	$(MAKE) install-files

install-files:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/indoorlab/Scenarios/large
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/indoorlab
	install -m 644 Scenarios/*.yaml $(DESTDIR)$(PREFIX)/share/indoorlab/Scenarios/
	install -m 644 Scenarios/large/*.yaml $(DESTDIR)$(PREFIX)/share/indoorlab/Scenarios/large/

# Fuzzing (docs/fuzzing.md): the readers under libFuzzer with AddressSanitizer, FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
fuzz-build: deps
	@# The harnesses are recompiled every time: SwiftPM does not when the lab's types change (docs/fuzzing.md).
	@# Its build plan goes too: with the plan kept, SwiftPM expects the removed output file maps and stops.
	rm -rf Fuzz/.build/*/release/FuzzSupport.build Fuzz/.build/*/release/fuzz_*.build Fuzz/.build/*/release/description.json Fuzz/.build/release.yaml
	$(SWIFT) build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld

fuzz: fuzz-build
	Fuzz/run --seconds $(FUZZ_SECONDS)

bench: build
	$(BIN) bench

# Import and replay at 1 M and 20 M readings: readings/s and peak memory (docs/speed.md, "Memory").
bench-memory: build
	scripts/memory-bench $(BIN)

clean:
	rm -rf .build out
