# test/ctl — programs of the external-control tests (issue 8), built into
# $(BUILD)/test/ctl/ and added to TEST_PROGRAMS:
#   ctl_prog     an instrumented program that counts its calls and waits in
#                a known function for the script (run under vftr-run)
#   libecmod.so  a test External Control module (vftr_ec.h) that logs what
#                capture calls, loaded through control.module
#   ctlspan      a .vfd check: events inside PAUSE..RESUME spans
#   ctl_mpimsg   an MPI ring that waits for the script (live message counts;
#                only when mpicc is there)
#   ctl_prog_mpi ctl_prog as an MPI program (an MPI_Allreduce per beta call;
#                only when mpicc is there)

CTLTEST_DIR := $(BUILD)/test/ctl

$(CTLTEST_DIR)/ctl_prog: test/ctl/ctl_prog.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 $(CAPTEST_FLAGS) $(WARN) -o $@ $< $(LDFLAGS) -lpthread

# ctl_prog built for instrument.patchable (capture/sled.c): nop sleds, no
# hooks (ctl_throttle.sh: unthrottle sends the stubs' sleds back)
$(CTLTEST_DIR)/ctl_prog_sled: test/ctl/ctl_prog.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -fpatchable-function-entry=5 $(CAPTEST_SAN) $(WARN) \
		-o $@ $< $(LDFLAGS) -lpthread

$(CTLTEST_DIR)/libecmod.so: test/ctl/ecmod.c capture/vftr_ec.h
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) $(filter -fsanitize%,$(CFLAGS)) -fPIC -shared \
		-Icapture -o $@ $< $(LDFLAGS) -lpthread

$(CTLTEST_DIR)/ctlspan: $(OBJ)/test/ctl/ctlspan.o $(VFTR_VFD_A) $(VFTR_UTIL_A)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(VFTR_VFD_A) $(VFTR_UTIL_A)

$(CTLTEST_DIR)/ctl_mpimsg: test/ctl/ctl_mpimsg.c
	$(call say,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPICC) -std=c11 -D_GNU_SOURCE -O2 -g -Wall -o $@ $<

$(CTLTEST_DIR)/ctl_prog_mpi: test/ctl/ctl_prog.c
	$(call say,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPICC) -std=c11 -DCTL_PROG_MPI $(CAPTEST_FLAGS) -Wall -o $@ $< -lpthread

CTLTEST_BINS := $(CTLTEST_DIR)/ctl_prog $(CTLTEST_DIR)/ctl_prog_sled $(CTLTEST_DIR)/libecmod.so $(CTLTEST_DIR)/ctlspan \
                $(if $(strip $(MPICC)),$(CTLTEST_DIR)/ctl_mpimsg $(CTLTEST_DIR)/ctl_prog_mpi)
TEST_PROGRAMS += $(CTLTEST_BINS)

ctl-tests: $(CTLTEST_BINS) $(BIN)/vftr-ctl $(BIN)/vftr-run $(CAPTURE_SO)
.PHONY: ctl-tests

# The protocol parser's fuzz target uses capture/ctlproto.c only.
FUZZ_LIBSRC += capture/ctlproto.c
FUZZ_CPPFLAGS += -Icapture
