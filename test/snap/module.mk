# test/snap — vftr-snap's test programs and its extra library.
#
# snapgen (a reproducible random trace with every record kind vftr-snap
# reads) and snaptext (a trace from a small text description) are built
# against the reference OTF, the oracle's input, and against vftr's OTF
# (faster: the benchmark's traces).

ANALYZER_LDLIBS_vftr-snap := -lcjson

SNAP_TEST_DIR := $(TEST_DIR)/snap
SNAP_TOOLS := snapgen snaptext
SNAP_REF   := $(addprefix $(SNAP_TEST_DIR)/ref/,$(SNAP_TOOLS))
SNAP_VFTR  := $(addprefix $(SNAP_TEST_DIR)/vftr/,$(SNAP_TOOLS))

$(SNAP_TEST_DIR)/vftr/%: test/snap/%.c $(OTF_A) $(OTF_HEADERS)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -D_GNU_SOURCE -I$(OTF_INC_DIR) -std=c11 $(OPT) $(WARN) \
		$(filter -fsanitize%,$(CFLAGS)) -o $@ $< $(LDFLAGS) $(OTF_A) $(VFTR_LDLIBS)

# The reference headers do not pass vftr's warning set (as in test/compat).
$(SNAP_TEST_DIR)/ref/%: test/snap/%.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -D_GNU_SOURCE $(REF_OTF_CFLAGS) -std=gnu11 $(OPT) -Wall -o $@ $< $(REF_OTF_LIBS)

TEST_PROGRAMS += $(SNAP_REF) $(SNAP_VFTR)

# The --script parser's fuzz target.
FUZZ_LIBSRC += analyzers/vftr-snap/script.c analyzers/vftr-snap/job.c lib/model/snapshot.c \
               lib/model/snap_otf.c lib/model/u64map.c $(wildcard lib/util/*.c)
FUZZ_LDLIBS += -lcjson -lpcre2-8
FUZZ_CPPFLAGS += -Ianalyzers/vftr-snap
