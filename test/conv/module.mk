# test/conv — helpers of the vfd2otf tests (test/integration/vfd2otf_*.sh):
#   mkvfd    writes .vfd runs through lib/vfd's writer (the test input)
#   refdump  reads OTF with the REFERENCE library (the oracle)
#   libblockcount.so  counts the MPI collectives vfd2otf-mpi calls (LD_PRELOAD)

CONV_TEST_DIR := $(TEST_DIR)/conv
CONV_MKVFD    := $(CONV_TEST_DIR)/mkvfd
CONV_REFDUMP  := $(CONV_TEST_DIR)/refdump

$(CONV_MKVFD): $(OBJ)/test/conv/mkvfd.o $(VFTR_VFD_A)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(VFTR_VFD_A) $(VFTR_LDLIBS)

# The reference headers do not pass vftr's warning set (see test/module.mk).
$(CONV_REFDUMP): test/conv/refdump.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -D_GNU_SOURCE $(REF_OTF_CFLAGS) -std=gnu11 $(OPT) -Wall -o $@ $< $(REF_OTF_LIBS)

TEST_PROGRAMS += $(CONV_MKVFD) $(CONV_REFDUMP)

# Plain mpicc, no sanitizer: it is preloaded ahead of the tool's libraries.
ifneq ($(MPICC),)
CONV_BLOCKCOUNT := $(CONV_TEST_DIR)/libblockcount.so
$(CONV_BLOCKCOUNT): test/conv/blockcount.c
	$(call say,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)OMPI_CC=$(CC) $(MPICC) -std=c11 $(OPT) $(WARN) -fPIC -shared -o $@ $<
TEST_PROGRAMS += $(CONV_BLOCKCOUNT)
endif

# The libFuzzer target test/fuzz/fuzz_vfd2otf.c compiles the engine in.
FUZZ_LIBSRC += lib/model/vfdconv.c lib/model/u64map.c
