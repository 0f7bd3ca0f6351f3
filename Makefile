# cardroom — the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
# Tools are pinned in tools/go.mod and run with `go tool` (tools/gotool), outside the workspace.
BUF = "$$(tools/gotool -path buf)"
MODULES := $(shell $(GO) list -m -f '{{.Dir}}' 2>/dev/null)
ARGS ?=

.PHONY: run test generate check-generate lint vet fmt bench tidy web check-web

run: ## start the whole system in one process
	$(GO) run ./cmd/cardroom serve $(ARGS)

# Modules without packages yet are skipped (go vet refuses an empty pattern).
HASPKG = $(GO) list ./... 2>/dev/null | grep -q .

# Statistical play-strength tests named *WinRate skip themselves under the race detector (it slows
# the bots tenfold); they run in a second pass without it. The bots' *DecisionTime tests measure
# time, which a shared CI machine makes noise of: they run in make bots-winrate (and the
# benchmarks), not here.
# TestAPIDoc (cmd/cardroom) runs docs/api.md with the pinned grpcurl: it is built first, outside any
# test's time limit.
test: lint vet ## every module's tests with the race detector, then the play-strength tests
	@tools/gotool -path grpcurl >/dev/null
	@set -e; for m in $(MODULES); do (cd $$m && $(HASPKG)) || continue; echo "== $$m"; (cd $$m && $(GO) test -race -count=1 -timeout 20m ./...); done
	@set -eo pipefail; for m in $(MODULES); do (cd $$m && $(HASPKG)) || continue; (cd $$m && $(GO) test -count=1 -run 'WinRate$$' ./... | { grep -v -e 'no test files' -e 'no tests to run' || true; }); done

generate: ## regenerate Go from proto/
	rm -rf proto/gen
	$(BUF) generate

check-generate: generate ## fail when generated code is not what is committed
	@git add -N proto/gen >/dev/null 2>&1 || true
	@git diff --exit-code --stat -- proto/gen || (echo "generated code is stale: run make generate and commit"; exit 1)

# The web client (web/, see docs/web.md): TypeScript generated from the public protos with
# protoc-gen-es from web/node_modules, bundled by vite into web/dist, which is committed and embedded
# in the binary (so `make run` needs no Node). Node 20 or later; npm ci installs the locked versions.
# The client package (web/client, @cardroom/client, an npm workspace of web/) is built with tsc and
# its unit tests (vitest) run after the page is bundled.
WEB_PROTOS = $(foreach p,gateway events game stats sapotagem sponsio saboteur sabaisabai,--path proto/cardroom/$(p))

web: ## rebuild the web client into web/dist and run the client package's tests (needs Node and npm)
	cd web && npm ci --no-audit --no-fund --loglevel=error
	$(BUF) generate --template web/buf.gen.yaml $(WEB_PROTOS)
	cd web && npm run --silent build && npm run --silent test

check-web: web ## fail when the committed web client is not what its sources build
	@git add -N web/dist web/client/src/gen >/dev/null 2>&1 || true
	@git diff --exit-code --stat -- web/dist web/client/src/gen || (echo "the web client's build is stale: run make web and commit"; exit 1)

STATICCHECK = "$$(tools/gotool -path staticcheck)"

lint: ## buf lint and the protos' formatting; staticcheck over every module
	$(BUF) lint
	$(BUF) format --diff --exit-code
	@set -e; sc=$(STATICCHECK); for m in $(MODULES); do (cd $$m && $(HASPKG)) || continue; (cd $$m && $$sc ./...); done

vet:
	@set -e; for m in $(MODULES); do (cd $$m && $(HASPKG)) || continue; (cd $$m && $(GO) vet ./...); done
	@test -z "$$(gofmt -l $$(git ls-files -co --exclude-standard -- '*.go'))" || (gofmt -l $$(git ls-files -co --exclude-standard -- '*.go'); echo "gofmt needed"; exit 1)

bench: ## the benchmarks behind docs/performance.md
	@set -e; for m in $(MODULES); do (cd $$m && $(HASPKG)) || continue; (cd $$m && $(GO) test -run '^$$' -bench . -benchmem ./...); done

# perf-pair runs cardroom serve and the skeleton (the same transport and storage work per action,
# nothing else) alternately under the same load and prints their ratios; the output is kept in
# docs/perf-pair/last.txt with the date, the commit and the settings, whenever it got as far as its
# ratios (it may exit with an error status after printing them). PERF_PAIR_ARGS passes its flags
# (--pairs, --tables, --duration, --rate, --quiet-load). Seven pairs by default: on a shared
# 2-core machine one pair's ratios moved from 0.27 to 0.46 within a quarter hour (docs/performance-log.md,
# "the gRPC server's telemetry, and decoded lobby records");
# the median of seven held. "+changes" in the header means uncommitted changes beyond its own output.
# It sits beside the repository (../shared/tools); a worktree elsewhere sets PERF_PAIR.
PERF_PAIR ?= $(firstword $(wildcard ../shared/tools/perf-pair $(dir $(shell git rev-parse --git-common-dir 2>/dev/null))../shared/tools/perf-pair) ../shared/tools/perf-pair)
PERF_PAIR_ARGS ?= --pairs 7 --tables 500 --duration 20s
.PHONY: perf-pair
.PHONY: bots-winrate
bots-winrate: ## the bots' play-strength tests at the issue's size: 1,000 seeded games each (long: about an hour on one core)
	@set -eo pipefail; for m in services/sapotagem services/sponsio services/sabaisabai services/saboteur; do (cd $$m && CARDROOM_WINRATE=1 $(GO) test -count=1 -timeout 3h -v -run 'WinRate$$|DecisionTime$$' ./bot/ | grep -e '^---' -e 'wins of' -e 'gold reached in' -e 'p50' -e '^ok' -e FAIL); done

perf-pair: ## cardroom serve beside the skeleton, alternating runs; output in docs/perf-pair/last.txt
	@test -x "$(PERF_PAIR)" || { echo "perf-pair not found at $(PERF_PAIR): set PERF_PAIR"; exit 1; }
	@mkdir -p docs/perf-pair
	@out=$$(mktemp); \
	  { echo "# $$(date -u +%FT%TZ) commit $$(git rev-parse --short HEAD)$$(git diff --quiet HEAD -- . ':!docs/perf-pair' || echo +changes) load $$(cut -d' ' -f1-3 /proc/loadavg)"; \
	    echo "# $(PERF_PAIR) $(PERF_PAIR_ARGS)"; \
	    $(PERF_PAIR) $(PERF_PAIR_ARGS); } | tee "$$out"; \
	  if grep -q '^ratios' "$$out"; then mv "$$out" docs/perf-pair/last.txt; \
	  else rm -f "$$out"; echo "perf-pair gave no ratios: docs/perf-pair/last.txt left as it was"; exit 1; fi

# perf-pair-plus runs cardroom serve beside the skeleton and beside the skeleton "plus" (carrying the
# transport and storage work cardroom's contract requires: scripts/skeleton-plus), alternating, with
# each process's CPU per action, and prints the ratios to both; output in docs/perf-pair/plus.txt.
# PERF_PAIR_PLUS_ARGS passes scripts/perf-pair-procs' flags.
PERF_PAIR_PLUS_ARGS ?= --pairs 5 --tables 500 --duration 20s
.PHONY: perf-pair-plus
perf-pair-plus: ## cardroom beside the skeleton and the skeleton plus its contract's extras; output in docs/perf-pair/plus.txt
	@mkdir -p docs/perf-pair
	@out=$$(mktemp); \
	  { echo "# $$(date -u +%FT%TZ) commit $$(git rev-parse --short HEAD)$$(git diff --quiet HEAD -- . ':!docs/perf-pair' || echo +changes) load $$(cut -d' ' -f1-3 /proc/loadavg)"; \
	    echo "# scripts/perf-pair-procs --mode serve --plus $(PERF_PAIR_PLUS_ARGS)"; \
	    scripts/perf-pair-procs --mode serve --plus $(PERF_PAIR_PLUS_ARGS); } | tee "$$out"; \
	  if grep -q '^ratios' "$$out"; then mv "$$out" docs/perf-pair/plus.txt; \
	  else rm -f "$$out"; echo "perf-pair-plus gave no ratios: docs/perf-pair/plus.txt left as it was"; exit 1; fi

# perf-pair-distributed is perf-pair for the distributed modes: cardroom's (make run-distributed,
# its own NATS) beside the skeleton's (its own NATS, two rules servers, two gateways), alternating,
# with each process's CPU per action; output in docs/perf-pair/distributed.txt.
PERF_PAIR_DISTRIBUTED_ARGS ?= --pairs 2 --tables 500 --duration 30s
.PHONY: perf-pair-distributed
perf-pair-distributed: ## the distributed mode beside the skeleton's, alternating runs, CPU per process; output in docs/perf-pair/distributed.txt
	@mkdir -p docs/perf-pair
	@out=$$(mktemp); \
	  { echo "# $$(date -u +%FT%TZ) commit $$(git rev-parse --short HEAD)$$(git diff --quiet HEAD || echo +changes) load $$(cut -d' ' -f1-3 /proc/loadavg)"; \
	    echo "# scripts/perf-pair-procs --mode distributed $(PERF_PAIR_DISTRIBUTED_ARGS)"; \
	    scripts/perf-pair-procs --mode distributed $(PERF_PAIR_DISTRIBUTED_ARGS); } | tee "$$out"; \
	  if grep -q '^ratios' "$$out"; then mv "$$out" docs/perf-pair/distributed.txt; \
	  else rm -f "$$out"; echo "perf-pair-distributed gave no ratios: docs/perf-pair/distributed.txt left as it was"; exit 1; fi

.PHONY: run-distributed
run-distributed: ## every service its own process on loopback: 2 gateways, 2 replicas per rules service, stats, Redis, NATS (ARGS=--cluster: a 6-node Redis Cluster and a 3-server JetStream cluster)
	scripts/run-distributed $(ARGS)

.PHONY: chaos chaos-long soak
chaos: ## faults during games in the distributed mode (replicas, Redis, NATS, stats killed; network latency and cuts; two pairs of faults at once), then on the clusters (a Redis primary and the stream's NATS leader killed; answers wait for a Redis replica), every action audited
	scripts/chaos
	CHAOS_CLUSTER=1 scripts/chaos

chaos-long: ## chaos with twice the tables and graceful Redis and NATS restarts (outside CI)
	CHAOS_LONG=1 scripts/chaos
	CHAOS_LONG=1 CHAOS_CLUSTER=1 scripts/chaos

soak: ## 10 minutes of steady play in the distributed mode; fails when goroutines, heap or descriptors grow, or Redis keys per finished table (outside CI)
	scripts/soak

# Images (docs/deploy.md): ko builds each main package into cardroom/<binary>:<tag> on a base that
# tools/images makes and serves itself, so no registry is needed. The tag is the one the manifests
# use (deploy/k8s/base/kustomization.yaml). Out: out/images/images.tar (docker load), sbom/ (SPDX).
IMAGE_TAG ?= $(shell awk '/newTag:/ { print $$2; exit }' deploy/k8s/base/kustomization.yaml)
IMAGE_PKGS = ./gateway/cmd/gateway ./services/sapotagem/cmd/sapotagem ./services/sponsio/cmd/sponsio \
	./services/sabaisabai/cmd/sabaisabai ./services/saboteur/cmd/saboteur ./services/stats/cmd/stats ./cmd/cardroom

.PHONY: images
images: ## build every service's image (ko, no registry) into out/images; loads them into Docker when a daemon answers
	cd tools && GOWORK=off $(GO) run ./images -ko "$$(./gotool -path ko)" -C .. -out ../out/images -tag $(IMAGE_TAG) $(IMAGE_PKGS)
	@if docker info >/dev/null 2>&1; then docker load -i out/images/images.tar; else echo "images: no Docker daemon answers; the images are in out/images/images.tar"; fi

.PHONY: e2e-containers
e2e-containers: ## the distributed mode as containers of the built images, with rules and gateway containers killed mid-game (needs Docker; skips saying why without it)
	scripts/e2e-containers
