# Weft: `make run` builds and opens the desktop app on the sample workflow;
# `make test` installs what the tests need and runs every suite.
SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(HOME)/go/bin:$(PATH)
export WEFT_KEYRING ?= off
# The MCP tests must run (not skip) wherever make test runs: deps installs the servers.
export WEFT_REQUIRE_MCP ?= 1
# The schedule tests load every systemd unit they render with systemd-analyze
# verify (Debian's systemd package, which deps installs): never skipped here.
export WEFT_REQUIRE_SYSTEMD_ANALYZE ?= 1
GO ?= go
TAGS := webkit2_41

.PHONY: all deps deps-build run build weft types test test-go test-temporal test-frontend test-e2e test-smoke vet fuzz bench bench-repair bench-editor clean conformance

all: build

deps:
	scripts/deps.sh test

deps-build:
	scripts/deps.sh build

weft:
	CGO_ENABLED=0 $(GO) build -o weft ./backend/cmd/weft

# The app is rebuilt only when its sources changed (a build takes minutes):
# Go sources, the frontend's sources and lock files, wails.json.
APP_SOURCES := $(shell find . -name '*.go' -not -name '*_test.go' -not -path './e2e/*' -not -path '*/node_modules/*' -not -path './build/*' -not -path '*/testdata/*' 2>/dev/null) \
	$(shell find frontend/src frontend/index.html frontend/package.json frontend/package-lock.json frontend/vite.config.ts frontend/tsconfig.json -type f -not -name '*.test.*' 2>/dev/null) \
	go.mod go.sum wails.json

# -skipbindings: the frontend calls Go through frontend/src/gen/bindings.ts
# (make types), not through the bindings Wails would generate.
build/bin/weft: $(APP_SOURCES)
	scripts/deps.sh build
	wails build -tags $(TAGS) -m -nosyncgomod -skipbindings

build: build/bin/weft

run: build/bin/weft
	./build/bin/weft

# staticcheck (installed by deps) runs with its default checks; the
# Temporal module has its own run in test-temporal.
# The frontend's types and its calls into Go (frontend/src/gen/bindings.ts),
# generated from the Go types the app binds (backend/tsgen); run after
# changing them: TestFrontendBindings (make test-go) fails while it is stale.
types:
	$(GO) test -count=1 -run '^TestFrontendBindings$$' . -update-bindings

vet:
	$(GO) vet ./...
	staticcheck ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

test-go: vet
	$(GO) test -count=1 ./...
	CGO_ENABLED=0 $(GO) build -o /dev/null ./backend/cmd/weft

# The Temporal suite runs against a real server embedded in its own Go
# module (temporal/devserver: the server's ~2 GB of dependencies stay out
# of the app's go.mod). The first build takes minutes; Go caches it.
test-temporal:
	cd temporal/devserver && $(GO) vet ./... && staticcheck ./... && $(GO) test -count=1 -timeout 30m ./...

# ESLint (frontend/eslint.config.js) first: a finding fails the suite.
test-frontend:
	cd frontend && npm run lint && npm test

test-e2e:
	scripts/e2e.sh

test-smoke:
	scripts/smoke.sh

test: deps
	$(MAKE) test-go
	$(MAKE) conformance
	$(MAKE) test-temporal
	$(MAKE) test-frontend
	$(MAKE) test-e2e
	$(MAKE) test-smoke
	@echo "make test: all suites passed"

# Every fuzz target, one after another (go test fuzzes one target per run);
# crashers are kept in each package's testdata/fuzz as seeds.
FUZZTIME ?= 60s
FUZZ_TARGETS := \
	./backend/validate:FuzzLoadValidate \
	./backend/flow:FuzzWalk \
	./backend/workflow:FuzzFastDecode \
	./backend/workflow:FuzzAnnotations \
	./backend/validate:FuzzValidateGraph \
	./backend/validate:FuzzExprRefs \
	./backend/validate:FuzzArgSchema \
	./backend/inputs:FuzzResolve \
	./backend/trigger:FuzzParseStripeHeader \
	./backend/trigger:FuzzParseSHA256Header \
	./backend/planner:FuzzParseOutput \
	./backend/planner:FuzzMeasureUnused \
	./backend/planner:FuzzAlign \
	./backend/expression:FuzzEvalCondition \
	./backend/render:FuzzRenderTemplate \
	./backend/quote:FuzzShellQuote \
	./backend/quote:FuzzCmdArg \
	./backend/redact:FuzzRedact \
	./backend/reveal:FuzzText \
	./backend/reveal:FuzzJSON \
	./backend/approval:FuzzStepDisplay \
	./backend/critic:FuzzDecode \
	./backend/settings:FuzzLoadSettings \
	./backend/runner:FuzzParseRetryAfter \
	./backend/schedule:FuzzParseCron \
	./backend/llm:FuzzRetryAfter \
	./backend/testcase:FuzzDecode \
	./backend/testcase:FuzzSetMocks

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t##*:}; echo "fuzz $$name ($$pkg) for $(FUZZTIME)"; \
	  $(GO) test $$pkg -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=5s; \
	done

# Scores on other projects' published test tables, read from ../shared/peer
# (never copied here): a case Weft misses fails unless it is a documented
# difference (backend/conformance/differences_test.go, docs/llm-format.md).
# WEFT_PEER_MISSES=1 lists the documented ones too. A clone elsewhere (CI's
# /tmp/ci-check-N, cloned from this checkout) reads the tables beside the
# repository it was cloned from; only where neither has them is the suite
# skipped, loudly.
ORIGIN_DIR := $(shell git config --get remote.origin.url 2>/dev/null)
PEER_DIR ?= $(firstword $(wildcard $(abspath ../shared/peer) $(abspath $(ORIGIN_DIR)/../shared/peer)))
conformance:
	@if [ -z "$(PEER_DIR)" ]; then \
	  echo "*** make conformance: NOT RUN: no peer tables at $(abspath ../shared/peer) nor beside the origin ($(ORIGIN_DIR)); set PEER_DIR ***"; \
	  exit 0; fi; \
	set -o pipefail; WEFT_PEER_DIR=$(PEER_DIR) $(GO) test -count=1 -run '^TestConformance' -v ./backend/conformance \
	  | grep -E 'table|---|FAIL|^ok|MISS|DIFFERS|now agrees|no case|#[0-9]|test_'

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./backend/...

bench-repair:
	$(GO) run ./backend/planner/benchrepair

# Open/render/pan figures in Chromium and the built app's memory (needs port 34115 free).
bench-editor: deps
	scripts/bench-editor.sh

clean:
	rm -rf build/bin frontend/dist/assets frontend/dist/index.html artifacts weft
