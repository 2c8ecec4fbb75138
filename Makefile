# mtiacc: `make demo` sets everything up and runs the vector add; `make test` runs the whole suite.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
BIN    := $(VENV)/bin
BUILD  := build

.PHONY: all install demo test bench bench-passes docs clean

all: demo

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,plot]'
	touch $@

# triton, torch and transformers for tests/triton and tests/torch (torch pinned: an unpinned torch pulls CUDA);
# Ray for tests/sweep's two-node cluster
$(VENV)/.installed-torch: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[test,plot,torch,ray]'
	touch $@

install: $(VENV)/.installed

demo: install
	mkdir -p $(BUILD)
	$(PY) examples/vector_add_inputs.py $(BUILD)/data.npz
	$(BIN)/mtiacc examples/vector_add.py -o $(BUILD)/add.bin -D BLOCK_SIZE=256 --grid 'cdiv(N, BLOCK_SIZE)'
	$(BIN)/mtiasim run $(BUILD)/add.bin --inputs $(BUILD)/data.npz --grid 4 -o $(BUILD)/out.npz --stats
	$(PY) examples/vector_add_inputs.py --check $(BUILD)/out.npz

test: install $(VENV)/.installed-torch
	$(PY) -m pytest

# The tests `make test` leaves out (marked slow): the exhaustive part of the differential grids, the costlier
# models and cases of which the suite keeps a representative slice
.PHONY: test-slow
test-slow: install $(VENV)/.installed-torch
	$(PY) -m pytest -m slow

# Triton's language tests on the `cpu` backend and on Triton's interpreter: docs/conformance.md
# `make conformance TRITON_TESTS=../shared/triton-tests [BUDGET=3600] [ONLY=test_a,test_b] [RERUN=1] [WORKERS=2]
#  [EXECUTOR=local|ray [JOBS=N] [ADDRESS=auto|HOST:PORT]]`
# ours runs in chunks of test functions and resumes where a run stopped (reports in build/conformance/); with
# EXECUTOR the chunks run at once as a sweep executor's jobs (one core each) instead of one by one with WORKERS
TRITON_TESTS ?= ../shared/triton-tests
BUDGET ?= 3600
WORKERS ?= 2
# EXECUTOR only when given (opinfo's below defaults to local; conformance's default is one chunk after another)
CONFORMANCE_EXECUTOR := $(if $(filter command line environment,$(origin EXECUTOR)),$(EXECUTOR))
.PHONY: conformance
conformance: $(VENV)/.installed-torch
	$(PY) benchmarks/conformance.py --tests $(TRITON_TESTS) --budget $(BUDGET) --case-timeout 60 \
		$(if $(ONLY),--only '$(ONLY)') $(if $(RERUN),--rerun) \
		$(if $(CONFORMANCE_EXECUTOR),--executor $(CONFORMANCE_EXECUTOR) $(if $(JOBS),--jobs $(JOBS)) \
		$(if $(ADDRESS),--address $(ADDRESS)),-- -n $(WORKERS))

docs: install
	$(PY) -m mtiacc.asm.isadoc > docs/isa.md
	$(PY) -m mtiacc.ir --write

clean:
	rm -rf $(BUILD) .pytest_cache

bench: install
	$(PY) benchmarks/bench_vector_add.py

bench-passes: install
	$(PY) benchmarks/bench_passes.py --out docs/passes.md

# Flash attention's forward (the torch backend's kernel; with TUTORIALS=DIR, tutorial 06's): % of the DPE peak
# (`make bench-attention [TUTORIALS=DIR] [ARGS='--ctx 2048 --dim 128 --causal']`)
.PHONY: bench-attention
bench-attention: $(VENV)/.installed-torch
	$(PY) benchmarks/bench_attention.py $(if $(TUTORIALS),--tutorials $(TUTORIALS)) $(ARGS)

# GEMMs on the matrix engine: % of the DPE peak, % of the roofline, against the hand-written kernel
.PHONY: bench-gemm
bench-gemm: install
	$(PY) benchmarks/bench_gemm.py $(if $(QUICK),--quick)

# fp32 GEMMs (BERT-base's feed-forward, 128 x 3072 x 768) split into bf16 parts: cycles, instructions and the
# simulator's host seconds against bf16 operands (`make bench-fp32-gemm [ARGS='--table' | ARGS='--blocks 64,128,64']`)
.PHONY: bench-fp32-gemm
bench-fp32-gemm: install
	$(PY) benchmarks/bench_fp32_gemm.py $(ARGS)

# Vector add, softmax, layer norm and the Inductor-form RMSNorm, GELU and bias + residual + dropout against the
# roofline of the bytes they cannot avoid moving; with TUTORIALS=DIR also Triton's tutorial kernels as written (01,
# 02, 05, and the GEMMs 03, 08, 09 against max(bytes at DRAM bandwidth, FLOPs at the DPE peak)), each through the
# CLI, mtiacc.load and Triton running the tutorial's host code (the Triton column needs the torch extra)
# (`make bench-roofline [TUTORIALS=DIR] [ARGS='--compare --looped' | ARGS='--quick' | ARGS='--tutorials-only
# --only 03 09']`: --compare adds the runs without software pipelining)
.PHONY: bench-roofline
bench-roofline: install
	$(PY) benchmarks/bench_roofline.py $(if $(TUTORIALS),--tutorials $(TUTORIALS)) $(ARGS)

# `mtiacc sweep` throughput: local executor against the same jobs back to back, Ray against local, --resume
# (`make bench-sweep [JOBS=2] [POINTS=16] [RAY=1]`)
.PHONY: bench-sweep
bench-sweep: install
	$(PY) benchmarks/bench_sweep.py $(if $(JOBS),--jobs $(JOBS)) $(if $(POINTS),--points $(POINTS)) $(if $(RAY),--ray)

# Design-space exploration over a corpus of real models' kernels: latency against DRAM bandwidth, SRAM bandwidth
# and local-memory size (`make dse CORPUS=../shared/corpus [MODELS=a,b] [EXECUTOR=ray] [JOBS=N]`; docs/sweeps.md)
.PHONY: dse
dse: install
	$(PY) benchmarks/dse.py --corpus $(or $(CORPUS),../shared/corpus) --out $(BUILD)/dse $(if $(MODELS),--models $(MODELS)) \
		$(if $(EXECUTOR),--executor $(EXECUTOR)) $(if $(JOBS),--jobs $(JOBS))

# The same over zoo models' recorded launches (each model recorded first if it is not yet: its tiny inference
# under torch.compile, a minute or two a model):
# `make dse-zoo [MODELS=bert,gpt2,resnet,dlrm] [FACTORS=0.25,0.5,1,2,4] [EXECUTOR=ray] [JOBS=N]`
ZOO_DSE_MODELS ?= bert,gpt2,resnet,dlrm
comma := ,
.PHONY: dse-zoo
dse-zoo: $(VENV)/.installed-torch
	@for m in $(subst $(comma), ,$(or $(MODELS),$(ZOO_DSE_MODELS))); do \
		test -f $(BUILD)/zoo-launches/$$m/index.json || \
		HF_HUB_OFFLINE=1 $(PY) -m benchmarks.zoo.launches record $$m --dir $(BUILD)/zoo-launches || exit 1; done
	$(PY) benchmarks/dse.py --zoo $(or $(MODELS),$(ZOO_DSE_MODELS)) --launches $(BUILD)/zoo-launches --out $(BUILD)/dse-zoo \
		$(if $(FACTORS),--factors $(FACTORS)) $(if $(EXECUTOR),--executor $(EXECUTOR)) $(if $(JOBS),--jobs $(JOBS))

.PHONY: bench-sim bench-micro
bench-sim: install
	$(PY) benchmarks/bench_sim.py

bench-micro: install
	$(PY) benchmarks/micro/run.py

# What the compiled code does (outputs, cycles, instructions) over the examples and, with CORPUS=DIR, a corpus:
# `make bench-behaviour OUT=before.json`, then after a change `make bench-behaviour OUT=after.json BASE=before.json`
.PHONY: bench-behaviour
bench-behaviour: install
	$(PY) benchmarks/behaviour.py $(if $(CORPUS),--corpus $(CORPUS)) $(if $(OUT),--out $(OUT)) $(if $(BASE),--compare $(BASE))

# Compile time against another revision (BASE), side by side: `make bench-compile BASE=fad7d53 [CORPUS=DIR] [TUTORIALS=DIR]`
.PHONY: bench-compile
bench-compile: install
	$(PY) benchmarks/bench_compile.py $(if $(BASE),--vs $(BASE)) $(if $(CORPUS),--corpus $(CORPUS)) $(if $(TUTORIALS),--tutorials $(TUTORIALS)) $(ARGS)

# PyTorch models through torch.compile(backend="mtia"): the coverage table (`make models [MODE=max-autotune]`)
.PHONY: models
models: $(VENV)/.installed-torch
	$(PY) examples/torch_models.py $(if $(MODE),--mode $(MODE)) $(if $(JSON),--json $(JSON))

# The model zoo (benchmarks/zoo): 60 architectures through torch.compile(backend="mtia"), each against eager, with
# its layers and time on the chip: `make zoo [SIZE=real] [TRAIN=1] [MODELS=a,b] [JOBS=2] [EXECUTOR=local|ray]
# [TIMEOUT=S] [RESUME=1]`; the table on stdout, build/zoo.json and build/zoo.html
.PHONY: zoo
zoo: $(VENV)/.installed-torch
	HF_HUB_OFFLINE=1 $(PY) -m benchmarks.zoo $(if $(SIZE),--size $(SIZE)) $(if $(TRAIN),--train) \
		$(if $(MODELS),--models $(MODELS)) $(if $(JOBS),--jobs $(JOBS)) $(if $(EXECUTOR),--executor $(EXECUTOR)) \
		$(if $(TIMEOUT),--timeout $(TIMEOUT)) $(if $(RESUME),--resume) --out $(BUILD)/zoo

# Mutation testing (docs/mutation.md): one planted bug at a time in the rooms where a wrong decision miscompiles,
# each against its module's tests; resumable (build/mutate/results.json), prints the score per module and the
# survivors: `make mutate [MODULES='mtiacc/opt/licm.py mtiacc/ir/analysis'] [MAX=N] [LIST=1] [REPORT=1] [NOROOM=1]`
.PHONY: mutate
mutate: install
	$(PY) benchmarks/mutate.py $(MODULES) $(if $(MAX),--max $(MAX)) $(if $(LIST),--list) $(if $(REPORT),--report) $(if $(NOROOM),--no-room-check)

# Random kernels against numpy at -O0 and -O3 (and -O2 where a loop has constant bounds), with the boundary shapes
# (mask spellings, loops that never run, backwards accesses, exact rounding ties), and mutated binaries, metadata and
# inputs:
# `make fuzz N=500 [SEED=0] [JOBS=2]`; each failure is minimized and written under fuzz-out/
N ?= 200
JOBS ?= 2
.PHONY: fuzz
fuzz: install
	PYTHONPATH=. $(PY) -W ignore -m tests.fuzz.gen --count $(N) --jobs $(JOBS) --seed $(or $(SEED),0) --out fuzz-out/kernels --progress 50
	PYTHONPATH=. $(PY) tests/fuzz_inputs.py --count $$(( $(N) * 10 )) --seed $(or $(SEED),0) --out fuzz-out/inputs

# PyTorch's OpInfo database through torch.compile(backend="mtia", fullgraph=True) against eager: docs/opinfo.md and
# build/opinfo.json (`make opinfo [OPS=add,sum] [DTYPES=float32] [LIMIT=1] [JOBS=2] [EXECUTOR=local|ray] [RESUME=1]`)
EXECUTOR ?= local
.PHONY: opinfo
opinfo: $(VENV)/.installed-torch
	$(PY) benchmarks/opinfo.py --jobs $(JOBS) --executor $(EXECUTOR) --json $(BUILD)/opinfo.json --md docs/opinfo.md \
		$(if $(OPS),--ops '$(OPS)') $(if $(DTYPES),--dtypes '$(DTYPES)') $(if $(LIMIT),--limit-samples $(LIMIT)) \
		$(if $(RESUME),--resume)

# PyTorch's Inductor tests (test/inductor/test_torchinductor.py, kept outside the project like Triton's tests) on
# the mtia backend, the CPU device's tests as PyTorch's Triton-CPU target runs them: docs/inductor-tests.md and
# build/inductor-tests/ (junit.xml, results.json): `make inductor-tests INDUCTOR_TESTS=path [K=expr] [JOBS=2]
# [EVERY=N] [BUDGET=S] [CASE_TIMEOUT=S] [REFERENCE=1]`; REFERENCE=1 runs the failures again as PyTorch's own CPU
# tests (stock Inductor, C++) to tell which the test file causes
INDUCTOR_TESTS ?= ../inductor-tests
CASE_TIMEOUT ?= 180
.PHONY: inductor-tests
inductor-tests: $(VENV)/.installed-torch
	$(PY) benchmarks/inductor_tests.py --tests $(INDUCTOR_TESTS) --jobs $(JOBS) --budget $(BUDGET) \
		--case-timeout $(CASE_TIMEOUT) --md docs/inductor-tests.md $(if $(K),-k '$(K)') $(if $(EVERY),--every $(EVERY)) \
		$(if $(PROVENANCE),--provenance '$(PROVENANCE)') $(if $(REFERENCE),--reference)
