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

# Two test processes side by side, each running its suites one at a time (scripts/test says why).
test: bootstrap
	bash scripts/test

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Fuzz

format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests Fuzz

bench:
	@bash scripts/bootstrap --bench
	$(SWIFT) run -c release tidings-bench

fuzz: bootstrap
	bash scripts/fuzz $(or $(SECONDS),60)
