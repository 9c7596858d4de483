# test/stats — generator programs for vftr-stats's tests and benchmark
# (test/integration/vftr_stats*.sh, bench/stats).  Each is built twice, like
# test/compat: against vftr's OTF library and against the reference, so that
# the same trace can be written by both.

STATSGEN_DIR := $(BUILD)/test/stats
STATSGEN_SRC := $(wildcard test/stats/*.c)
STATSGEN_VFTR := $(patsubst test/stats/%.c,$(STATSGEN_DIR)/vftr/%,$(STATSGEN_SRC))
STATSGEN_REF  := $(patsubst test/stats/%.c,$(STATSGEN_DIR)/ref/%,$(STATSGEN_SRC))

$(STATSGEN_DIR)/vftr/%: test/stats/%.c $(OTF_A) $(OTF_HEADERS)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -D_GNU_SOURCE -I$(OTF_INC_DIR) -std=c11 $(OPT) $(WARN) \
		$(filter -fsanitize%,$(CFLAGS)) -o $@ $< $(LDFLAGS) $(OTF_A) $(VFTR_LDLIBS)

# The reference headers do not pass vftr's warning set (see test/module.mk).
$(STATSGEN_DIR)/ref/%: test/stats/%.c
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -D_GNU_SOURCE $(REF_OTF_CFLAGS) -std=gnu11 $(OPT) -Wall -o $@ $< $(REF_OTF_LIBS)

TEST_PROGRAMS += $(STATSGEN_VFTR) $(STATSGEN_REF)

.PHONY: stats-tests
stats-tests: $(STATSGEN_VFTR) $(STATSGEN_REF)
