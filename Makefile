# The two commands of a fresh machine: `make demo` and `make test`. Both install what they need first.
SWIFT ?= swift

.PHONY: bootstrap build demo test lint format bench fuzz

bootstrap:
	@bash scripts/bootstrap

build: bootstrap
	$(SWIFT) build

# The main job: tidingsd, the APNs emulator, a media server and simulated iPhones running the real SDK,
# all on this machine; a rich campaign goes out and its funnel is printed (docs/end-to-end.md).
demo: bootstrap
	$(SWIFT) build --product tidings
	$$($(SWIFT) build --show-bin-path)/tidings demo

# Serial: several suites run real servers whose handlers need the cooperative thread pool, which
# parallel suites that block (child processes, SQLite locks) can starve on a 2-core machine.
test: bootstrap
	$(SWIFT) test --no-parallel

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Fuzz

format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests Fuzz

bench:
	@bash scripts/bootstrap --bench
	$(SWIFT) run -c release tidings-bench

fuzz: bootstrap
	bash scripts/fuzz $(or $(SECONDS),60)
