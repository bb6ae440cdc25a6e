# The two commands of a fresh machine: `make demo` and `make test`. Both install what they need first.
SWIFT ?= swift

.PHONY: bootstrap build demo test lint format bench fuzz

bootstrap:
	@bash scripts/bootstrap

build: bootstrap
	$(SWIFT) build

# The main job. Until `tidings demo` exists it decodes a bundled payload of every dialect.
demo: bootstrap
	$(SWIFT) build --product tidings
	@for payload in Examples/payloads/*.json; do \
		echo "== $$payload"; \
		$$($(SWIFT) build --show-bin-path)/tidings payload inspect "$$payload" || exit 1; \
	done

test: bootstrap
	$(SWIFT) test

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Fuzz

format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests Fuzz

bench: bootstrap
	$(SWIFT) run -c release tidings-bench

fuzz: bootstrap
	bash scripts/fuzz $(or $(SECONDS),60)
