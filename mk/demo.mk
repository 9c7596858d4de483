# make demo — the main job on a bundled example, as the README's first
# command shows it:
#   1. share/examples/heat.c (2-D heat equation: MPI halo exchange, an
#      allreduce for convergence, OpenMP loops, a few levels of functions),
#      compiled with clang through mpicc (-fopenmp -finstrument-functions, so
#      that LLVM's OpenMP runtime reports regions through OMPT);
#   2. run under `mpirun -np 4` with 2 OpenMP threads per rank through
#      vftr-run: one .vfd per rank in build/demo/heat-run/;
#   3. vfd2otf: one OTF trace build/demo/heat.otf;
#   4. its vftr-stats profile, and how to open it in vftr-tui;
#   5. vftr-report: the page build/demo/report.html, and how to open it.
# It fails loudly when the trace lacks the example's functions, its MPI
# calls or its OpenMP regions.  Before that, the capture-only demo
# (share/examples/capture_demo.c, no MPI) and the OTF-library demo
# (share/examples/otf_demo.c) still run, as first steps.

DEMO_DIR := $(BUILD)/demo
DEMO_BIN := $(DEMO_DIR)/otf_demo

$(DEMO_BIN): share/examples/otf_demo.c $(OTF_A) $(OTF_HEADERS)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS) $(OTF_A) $(VFTR_LDLIBS)

DEMO_CAPTURE := $(DEMO_DIR)/capture_demo

# The user's side: an ordinary build with the compiler's function hooks.
$(DEMO_CAPTURE): share/examples/capture_demo.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O1 -g -finstrument-functions -o $@ $<

# The heat example: clang under Open MPI's wrapper (OMPI_CC), whatever CC is.
DEMO_HEAT := $(DEMO_DIR)/heat
DEMO_MPICC ?= $(shell command -v mpicc 2>/dev/null)
DEMO_NP ?= 4
DEMO_THREADS ?= 2
$(DEMO_HEAT): share/examples/heat.c
	$(call say,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)if [ -z "$(DEMO_MPICC)" ] || ! command -v clang >/dev/null; then \
		echo "demo: the heat example needs mpicc (Open MPI) and clang: run 'make deps'" >&2; exit 1; fi
	$(Q)OMPI_CC=clang $(DEMO_MPICC) -O1 -g -fopenmp -finstrument-functions -o $@ $< -lm

# What the trace must hold (names of DefFunction records).
DEMO_MUST := solve iterate exchange_halo jacobi_step converged MPI_Isend MPI_Irecv \
             MPI_Waitall MPI_Allreduce
# Open MPI in a container: shared memory only, no CMA, root allowed.
DEMO_MPIRUN := OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none \
               OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
               OMP_NUM_THREADS=$(DEMO_THREADS) mpirun -np $(DEMO_NP) --oversubscribe --bind-to none

demo: deps
	$(Q)$(MAKE) --no-print-directory all $(DEMO_BIN) $(DEMO_CAPTURE) $(DEMO_HEAT)
	$(Q)rm -f $(DEMO_DIR)/capture_demo_*
	@echo "--- 1. vftr-run $(DEMO_CAPTURE) (capture only, no MPI) ---"
	$(Q)$(BIN)/vftr-run -o $(DEMO_DIR) -- $(DEMO_CAPTURE)
	$(Q)sed -n '/^Profile/,$$p' $(DEMO_DIR)/capture_demo_0.log | head -n 14
	$(Q)rm -f $(DEMO_DIR)/demo.*
	$(Q)$(DEMO_BIN) $(DEMO_DIR)/demo
	@echo "--- 2. vftr-dump --count $(DEMO_DIR)/demo (an OTF trace written with vftr's OTF library) ---"
	$(Q)$(BIN)/vftr-dump --count $(DEMO_DIR)/demo
	@echo "--- 3. mpirun -np $(DEMO_NP) vftr-run $(DEMO_HEAT) ($(DEMO_THREADS) OpenMP threads per rank) ---"
	$(Q)rm -rf $(DEMO_DIR)/heat-run $(DEMO_DIR)/heat.*
	$(Q)mkdir -p $(DEMO_DIR)/heat-run
	$(Q)$(DEMO_MPIRUN) $(BIN)/vftr-run -o $(DEMO_DIR)/heat-run -- $(DEMO_HEAT)
	@ls -l $(DEMO_DIR)/heat-run/*.vfd
	@echo "--- 4. vfd2otf -o $(DEMO_DIR)/heat $(DEMO_DIR)/heat-run ---"
	$(Q)$(BIN)/vfd2otf -o $(DEMO_DIR)/heat $(DEMO_DIR)/heat-run
	$(Q)$(BIN)/vftr-dump --defs $(DEMO_DIR)/heat >$(DEMO_DIR)/heat.defs.txt
	$(Q)missing=""; for f in $(DEMO_MUST); do \
		grep -q "DefFunction .*name=\"$$f\"" $(DEMO_DIR)/heat.defs.txt || missing="$$missing $$f"; done; \
	grep -q 'DefFunction .*name="omp parallel' $(DEMO_DIR)/heat.defs.txt || missing="$$missing (OpenMP parallel regions)"; \
	grep -q 'DefFunction .*name="omp loop' $(DEMO_DIR)/heat.defs.txt || missing="$$missing (OpenMP loops)"; \
	if [ -n "$$missing" ]; then \
		echo "demo: FAILED: the trace $(DEMO_DIR)/heat.otf lacks:$$missing" >&2; exit 1; fi
	@echo "demo: the trace holds the example's functions, its MPI calls and its OpenMP regions"
	@echo "--- 5. vftr-stats $(DEMO_DIR)/heat ---"
	$(Q)$(BIN)/vftr-stats $(DEMO_DIR)/heat
	@echo "--- 6. vftr-report -o $(DEMO_DIR)/report.html $(DEMO_DIR)/heat ---"
	$(Q)$(BIN)/vftr-report -o $(DEMO_DIR)/report.html --svg $(DEMO_DIR)/report-svg $(DEMO_DIR)/heat
	@echo ""
	@echo "The trace is $(DEMO_DIR)/heat.otf.  Open it with:  $(BIN)/vftr-tui $(DEMO_DIR)/heat.otf"
	@echo "The report is $(DEMO_DIR)/report.html (one file, nothing else needed).  Open it with:"
	@echo "  xdg-open $(DEMO_DIR)/report.html     (or any browser: file://$(abspath $(DEMO_DIR))/report.html)"
