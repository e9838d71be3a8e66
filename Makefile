# vlmrb build entry points. `make test` is what CI runs (through .ci/run).
SHELL := /bin/bash
GO ?= go
GOLANGCI_VERSION := v2.15.0
GOBIN ?= $(shell $(GO) env GOPATH)/bin

# Packages with goroutines of their own: tested under the race detector.
RACE_PKGS := ./replay/... ./vlmprio/... ./hw/... ./control/... ./train/...

.PHONY: deps test test-viam viam-module vet unit purego lint bench bench-mujoco run build fmt onnx-check docker-check mujoco-oracle python python-check

# The commit every run records and `robot-train version` prints (CI builds
# with -buildvcs=false, so the linker sets it).
LDFLAGS := -X github.com/vlmrb/vlmrb/internal/platform.commit=$(shell git rev-parse HEAD 2>/dev/null)

deps:
	@./scripts/deps.sh

vet:
	$(GO) vet ./...

# unit: race-checked packages with -race, everything else without.
unit:
	@race=$$($(GO) list $(RACE_PKGS) 2>/dev/null); \
	rest=$$($(GO) list ./... | grep -vxF -f <(printf '%s\n' $$race)); \
	set -e; \
	if [ -n "$$race" ]; then $(GO) test -race -count=1 -timeout 30m $$race; fi; \
	$(GO) test -count=1 -timeout 30m $$rest

# purego: everything must build without cgo (EGL, GLFW and OpenBLAS are
# behind build constraints; the soft renderer and gonum BLAS remain).
purego:
	CGO_ENABLED=0 $(GO) build ./...

# make test compares sim/articulated with MuJoCo 3.3.8 (npm mujoco-js,
# cached outside the repository): a missing oracle fails it there.
test: export VLMRB_MUJOCO_ORACLE = require
test: deps vet mujoco-oracle unit purego

# mujoco-oracle: install node (apt, when root) and mujoco-js 0.0.7 into the
# cache that sim/mjcf's oracle tests read (scripts/mujoco-oracle.sh).
mujoco-oracle:
	@./scripts/mujoco-oracle.sh --install-only >/dev/null

# onnx-check: exported ONNX policies against vlmrb's forward pass in gonnx
# (module onnx/gonnxcheck) and in onnxruntime-node from npm (cached
# outside the repository). Run by .ci/run after make test.
onnx-check:
	@./scripts/onnx-check.sh

# test-viam: the Viam module (viam/, its own Go module; rdk is AGPL) against
# a real viam-server built from rdk's source, inside a loopback-only
# network namespace (scripts/test-viam.sh).
test-viam:
	@./scripts/test-viam.sh

# viam-module: viam/module.tar.gz, the Viam module as the registry takes it
# (meta.json, a static bin/vlmrb-viam; viam/package.sh).
viam-module:
	@$(MAKE) -C viam module.tar.gz

$(GOBIN)/golangci-lint:
	GOBIN=$(GOBIN) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)

lint: $(GOBIN)/golangci-lint
	$(GOBIN)/golangci-lint run ./...

bench:
	$(GO) test -run '^$$' -bench . ./...

# bench-mujoco: sim/articulated's speed against MuJoCo 2.2.2 (installs
# libmujoco-dev and libmujoco-samples when missing; not part of make test).
bench-mujoco:
	bench/mujoco.sh

# run: the README's main command. Trains the built-in default (rundir.DefaultConfig:
# SAC with γ 0.95 on reach-center — reach with the reward peaked at the goal —,
# 30,000 env steps, dense reward, uniform replay — replay "auto"; VLM-RB is
# --replay vlmrb; ≈ 3 CPU-minutes, single-threaded; studies/main-job: median ≥ 0.9
# deterministic success on 50 eval episodes over 10 seeds) into a fresh run
# directory, then prints its deterministic and stochastic success and where the
# learning curves, eval GIFs and checkpoint are.
# Override with e.g. `make run RUN_ARGS="--task push --steps 50000"` or RUN_OUT=dir.
RUN_OUT ?= runs/default-$(shell date +%Y%m%d-%H%M%S)
RUN_ARGS ?=
run: deps
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/robot-train train --out $(RUN_OUT) $(RUN_ARGS)

# docker-check: run the Dockerfile's build steps in a debootstrap chroot (no
# base image can be pulled here); DOCKERFILE=Dockerfile.gpu for the GPU variant.
# Needs root and a Debian mirror; 8 min on the shared 2-core machine, so not in .ci/run.
DOCKERFILE ?= Dockerfile
docker-check:
	scripts/docker-check.sh $(DOCKERFILE)

# ./robot-train with its commit recorded
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o robot-train ./cmd/robot-train

fmt:
	gofmt -w $$(git ls-files '*.go')

# python: the C ABI (python/capi) as python/vlmrb/libvlmrb.so, so that
# PYTHONPATH=python makes `import vlmrb` work (docs/python.md); written to
# a temporary name first, then renamed.
python:
	$(GO) build -buildmode=c-shared -o python/vlmrb/libvlmrb.so.tmp ./python/capi
	rm -f python/vlmrb/libvlmrb.so.tmp.h python/vlmrb/libvlmrb.so.h python/vlmrb/libvlmrb.h
	mv python/vlmrb/libvlmrb.so.tmp python/vlmrb/libvlmrb.so
	@echo "built python/vlmrb/libvlmrb.so; use it with PYTHONPATH=$(CURDIR)/python"

# python-check: the Python package's tests with Debian's numpy and pytest
# (scripts/python-check.sh installs them when missing).
python-check:
	@./scripts/python-check.sh
