# softmlx5 -- top-level entry points (a thin layer over CMake and ctest).
#
#   make build   configure + build into build/ (-O2 -g, asserts kept)
#   make check   deps, build, unit tests, ASan+UBSan unit tests, ABI check,
#                ibv_devinfo on the device, rdma-core's whole pyverbs suite
#                under a per-test watchdog (run_pyverbs.sh), crypto
#                conformance in both DEK modes (run_crypto.sh), two-process
#                pingpong/perftest pairs (tests/conformance/run_pingpong.sh),
#                the same over a lossy link (run_fault.sh, three seeds), a
#                capture of every transport checked packet by packet
#                (tests/transport/capture_run.py), processes in two network
#                namespaces on two devices (tests/net/netns_hosts.sh, as root),
#                a port bound to a veth and the network link between two
#                namespaces, udp and raw (ctest net_port, net_udp_link,
#                net_raw_link, as root)
#   make demo    deps, build, then scripts/demo.sh: the device, RDMA WRITE
#                between two processes with this run's figures, DEVX, the
#                FlexIO RPC, an error CQE explained by SOFTMLX5_DEBUG
#   make bench   build, then perftest between two processes beside physical
#                baselines (bench/run.sh, bench/baseline.c)
#   make interop build, then softmlx5 against Linux Soft-RoCE (rxe) in a
#                QEMU VM (../shared/tools/rxe-peer, or RXE_PEER=DIR), both
#                directions, capture checked (tests/interop/rxe_interop.sh;
#                as root; the first run downloads Debian's kernel and QEMU;
#                INTEROP_MODE=udp|raw, the port's netdev_mode)
#   make clean   remove build trees
#
# Variables: JOBS (parallel jobs), INTEROP_MODE (udp), RXE_PEER,
# PYVERBS_MODULES (default: every test module Debian's python3-pyverbs
# ships), PYVERBS_MIN_PASS,
# PYVERBS_TEST_TIMEOUT (seconds before a test counts as hung),
# PYVERBS_TIMEOUT (the whole pyverbs run), SOFTMLX5_SKIP_DEPS=1.

BUILD        := build
ASAN_BUILD   := build-asan
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE        ?= cmake
CTEST        ?= ctest
PYVERBS_MODULES  ?=
PYVERBS_MIN_PASS ?= 200
PYVERBS_TEST_TIMEOUT ?= 60
PYVERBS_TIMEOUT  ?= 900
INTEROP_MODE ?= udp

SOFTMLX5 := $(BUILD)/bin/softmlx5

# Release-ish: optimized with debug info, assertions kept (no -DNDEBUG).
CONFIG_FLAGS := -DCMAKE_BUILD_TYPE=RelWithDebInfo \
                -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g"
ASAN_FLAGS   := -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" \
                -DSMX_SANITIZE=ON
SAN_ENV      := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
                UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# $(call) splits its arguments at top-level commas: a banner's text may
# contain them, so every argument is joined back.
comma := ,
banner = @printf '\n==== %s\n' $(1)$(if $(2),$(comma)$(2))$(if $(3),$(comma)$(3))$(if $(4),$(comma)$(4))

.PHONY: all help deps build build-asan check demo bench interop clean

all: build

help:
	@sed -n '3,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@scripts/install-deps.sh

build:
	$(CMAKE) -S . -B $(BUILD) $(CONFIG_FLAGS)
	$(CMAKE) --build $(BUILD) -j $(JOBS)

build-asan:
	$(CMAKE) -S . -B $(ASAN_BUILD) $(ASAN_FLAGS)
	$(CMAKE) --build $(ASAN_BUILD) -j $(JOBS)

check: deps
	$(call banner,"build ($(BUILD)/)")
	@$(MAKE) --no-print-directory build
	$(call banner,"unit tests ($(BUILD)/)")
	cd $(BUILD) && $(CTEST) -LE 'conformance|abi|fuzz' --output-on-failure -j $(JOBS)
	$(call banner,"ASan+UBSan build ($(ASAN_BUILD)/) and unit tests")
	@$(MAKE) --no-print-directory build-asan
	cd $(ASAN_BUILD) && $(SAN_ENV) $(CTEST) -LE 'conformance|abi|fuzz' --output-on-failure -j $(JOBS)
	# -- fuzz (tests/fuzz): clang libFuzzer+ASan+UBSan on the PRM command interpreter (60 s), the WQE parsers (30 s), the RoCE packet parsers (20 s) and packet sequences into the RC receive path (60 s); skipped without clang
	$(call banner,"fuzz: PRM command interpreter / WQE and packet parsers / RC receive path (libFuzzer + ASan + UBSan)")
	cd $(BUILD) && $(CTEST) -L fuzz --output-on-failure
	$(call banner,"ABI: exports and SONAMEs vs Debian 12 rdma-core 44")
	tests/abi/compare_exports.sh $(BUILD)/lib
	$(call banner,"ibv_devinfo -v on the software device")
	tests/conformance/check_devinfo.sh $(SOFTMLX5)
	$(call banner,"pyverbs conformance (rdma-core 44 test suite, per-test watchdog)")
	tests/conformance/run_pyverbs.sh --build $(BUILD) --min-pass $(PYVERBS_MIN_PASS) \
		--test-timeout $(PYVERBS_TEST_TIMEOUT) --timeout $(PYVERBS_TIMEOUT) $(PYVERBS_MODULES)
	$(call banner,"crypto: test_mlx5_crypto in both DEK import modes")
	tests/conformance/run_crypto.sh --build $(BUILD) --min-pass 7
	$(call banner,"two processes: pingpong + perftest pairs; idle CPU; kill one side")
	tests/conformance/run_pingpong.sh --build $(BUILD) --timeout 60
	$(call banner,"two processes over a lossy link (SOFTMLX5_FAULT, three seeds)")
	tests/conformance/run_fault.sh --build $(BUILD) --timeout 20; rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]
	$(call banner,"capture of every transport: ICRCs recomputed; tshark dissects every packet")
	tests/transport/capture_run.py --build $(BUILD); rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]
	$(call banner,"two hosts on one machine: network namespaces are hosts (skipped unless root)")
	tests/net/netns_hosts.sh --build $(BUILD); rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]
	$(call banner,"two hosts: a port bound to an interface; the network link (netdev_mode udp and raw) between them (skipped unless root)")
	cd $(BUILD) && $(CTEST) -R '^net_(port|udp_link|raw_link)$$' --output-on-failure
	$(call banner,"make check: all stages passed")

demo: deps
	@$(MAKE) --no-print-directory build
	@echo
	@scripts/demo.sh $(BUILD)

bench:
	@$(MAKE) --no-print-directory build
	bench/run.sh --build $(BUILD)

# Not in `make check`: it boots a VM (QEMU, TCG where KVM cannot run
# Debian's kernel) and downloads its kernel; exit 77 (skipped, said why)
# where the tool, /dev/kvm or root is missing.
interop:
	@$(MAKE) --no-print-directory build
	tests/interop/rxe_interop.sh --build $(BUILD) --mode $(INTEROP_MODE) \
		$(if $(RXE_PEER),--rxe-peer $(RXE_PEER)); rc=$$?; \
		[ $$rc = 0 ] || [ $$rc = 77 ]

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
