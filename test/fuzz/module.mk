# make fuzz — every parser of vftr under libFuzzer (clang), each target run
# FUZZ_SECONDS (default 20) on its seed corpus (test/fuzz/corpus/NAME) and
# the corpus it grew before (build/fuzz/corpus-fuzz_NAME), FUZZ_JOBS
# (default 2, the cores of the project's test machine) at a time; then a
# table of the executions per target (test/fuzz/table.sh).
#
# The sources under test are compiled once, with the fuzzer's coverage and
# ASan + UBSan, into one archive (FUZZ_LIB) that every target links, instead
# of once per target: the archive takes the time of one build, a target the
# time of one file and a link.
#
# Fragments included earlier add their parsers' sources and libraries with
# FUZZ_LIBSRC += / FUZZ_CPPFLAGS += / FUZZ_LDLIBS +=.  A tool whose parser is
# not in a library (vftr-ctl's reply reader, vftr-run's ELF check) is
# compiled into its target by #include of the tool's .c file (main renamed).
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SECONDS ?= 20
FUZZ_JOBS    ?= 2
FUZZ_CC      ?= clang
FUZZ_TARGETS := $(patsubst test/fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard test/fuzz/fuzz_*.c))

# this fragment's own targets: the TUI's prompts and key actions (its
# curses-free part), the control client, the whole of lib/
FUZZ_LIBSRC   += $(wildcard lib/otf/*.c lib/vfd/*.c lib/util/*.c lib/model/*.c) $(OTF_GEN_C) \
                 tui/model.c tui/keys.c tui/snaprun.c tui/comm.c tui/waits.c capture/ctlproto.c
FUZZ_CPPFLAGS += -Icapture -Itui -DVFTR_VERSION=\"$(VERSION)\"
FUZZ_LDLIBS   += -lcjson -lpcre2-8

# undefined behaviour stops the run like a crash (and leaves its input)
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -MMD -MP -fno-sanitize-recover=undefined \
               -I$(OTF_INC_DIR) -Ilib/otf -I$(OTF_GEN_DIR) -Ilib $(sort $(FUZZ_CPPFLAGS))
FUZZ_SAN    := address,undefined
FUZZ_OBJ    := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(sort $(FUZZ_LIBSRC)))
FUZZ_LIB    := $(FUZZ_DIR)/libvftrfuzz.a

$(FUZZ_DIR)/obj/%.o: %.c | $(OTF_HEADERS) $(OTF_GEN_STAMP)
	$(call say,FUZZCC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_OBJ)
	$(call say,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_TARGETS): $(FUZZ_DIR)/%: test/fuzz/%.c $(FUZZ_LIB)
	$(call say,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $< $(FUZZ_LIB) \
		$(PKG_LIBS_OTF) $(sort $(FUZZ_LDLIBS)) -lpthread -lm

-include $(FUZZ_OBJ:.o=.d) $(addsuffix .d,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_TARGETS)

fuzz: deps
	$(Q)$(MAKE) --no-print-directory $(OTF_HEADERS) $(OTF_GEN_C)
	$(Q)$(MAKE) --no-print-directory fuzz-build
	$(Q)echo "fuzz: $(words $(FUZZ_TARGETS)) targets, $(FUZZ_SECONDS) s each, $(FUZZ_JOBS) at a time"
	$(Q)rc=0; printf '%s\n' $(FUZZ_TARGETS) | \
		xargs -P $(FUZZ_JOBS) -n 1 sh test/fuzz/run.sh $(FUZZ_SECONDS) || rc=1; \
		sh test/fuzz/table.sh $(FUZZ_TARGETS) || rc=1; exit $$rc

# make check runs every target once over its seeds and over the inputs that
# once found a bug (test/fuzz/regress/NAME), built by the project's compiler
# and flags (a SANITIZE build included) with test/fuzz/replay.c for a main:
# test/integration/fuzz_replay.sh.
FUZZ_REPLAY_DIR  := $(TEST_DIR)/fuzz
FUZZ_REPLAY      := $(patsubst test/fuzz/%.c,$(FUZZ_REPLAY_DIR)/%,$(wildcard test/fuzz/fuzz_*.c))
# the capture sources the targets use, as objects (the whole archive would
# bring capture's own vftr_trace_open along, which is not lib/util's)
FUZZ_REPLAY_OBJS := $(OBJ)/test/fuzz/replay.o $(OBJ)/analyzers/vftr-snap/job.o \
                    $(OBJ)/analyzers/vftr-snap/script.o $(TUI_CORE_OBJ) \
                    $(patsubst %.c,$(OBJ)/%.o,$(filter capture/%,$(sort $(FUZZ_LIBSRC))))

$(OBJ)/test/fuzz/%.o: CPPFLAGS += -Icapture -Itui -Ianalyzers/vftr-snap -Ilib/otf -I$(OTF_GEN_DIR) \
                                  -DVFTR_VERSION=\"$(VERSION)\"
$(OBJ)/test/fuzz/%.o: | $(OTF_GEN_STAMP)

$(FUZZ_REPLAY): $(FUZZ_REPLAY_DIR)/%: $(OBJ)/test/fuzz/%.o $(FUZZ_REPLAY_OBJS) $(VFTR_LIBS)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(FUZZ_REPLAY_OBJS) $(VFTR_LIBS) $(CAPTURE_LDLIBS) $(VFTR_LDLIBS)

TEST_PROGRAMS += $(FUZZ_REPLAY)
