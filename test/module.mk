# test — Check unit suites, programs built against both OTF libraries, and
# integration scripts.  `make check` runs all of them through test/run.sh,
# which ends with one line "N passed, N failed".

TEST_DIR   := $(BUILD)/test
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)

# Static libraries every test and tool links (in dependency order).
VFTR_LIBS  := $(VFTR_REPORT_A) $(VFTR_MODEL_A) $(VFTR_UTIL_A) $(VFTR_VFD_A) $(OTF_A)
VFTR_LDLIBS := $(PKG_LIBS_OTF) $(OTF2_LIBS) -lpcre2-8 -lpthread -lm

UNIT_SRC   := $(wildcard test/unit/test_*.c)
UNIT_BIN   := $(patsubst test/unit/%.c,$(TEST_DIR)/unit/%,$(UNIT_SRC))

$(TEST_DIR)/unit/%: $(OBJ)/test/unit/%.o $(VFTR_LIBS)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(VFTR_LIBS) $(VFTR_LDLIBS) $(CHECK_LIBS)

$(OBJ)/test/unit/%.o: CPPFLAGS += -Ilib/otf -Itest/unit

# Suites of the capture library (test/unit/test_capture_*.c) link it too.
UNIT_CAPTURE := $(filter $(TEST_DIR)/unit/test_capture_%,$(UNIT_BIN))
$(UNIT_CAPTURE): $(TEST_DIR)/unit/test_capture_%: $(OBJ)/test/unit/test_capture_%.o $(CAPTURE_A) $(VFTR_LIBS)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(CAPTURE_A) $(VFTR_LIBS) $(CAPTURE_LDLIBS) $(VFTR_LDLIBS) $(CHECK_LIBS)
$(OBJ)/test/unit/test_capture_%.o: CPPFLAGS += -Icapture

# Programs written against the OTF API (test/compat/*.c) are built twice:
# once against the reference OTF (the oracle) and once against vftr.
REF_OTF_CFLAGS := -I/usr/include/open-trace-format
REF_OTF_LIBS   := -lopen-trace-format -lz -lm
COMPAT_SRC := $(wildcard test/compat/*.c)
COMPAT_VFTR := $(patsubst test/compat/%.c,$(TEST_DIR)/compat/vftr/%,$(COMPAT_SRC))
COMPAT_REF  := $(patsubst test/compat/%.c,$(TEST_DIR)/compat/ref/%,$(COMPAT_SRC))

$(TEST_DIR)/compat/vftr/%: test/compat/%.c $(wildcard test/compat/*.h) $(OTF_A) $(OTF_HEADERS)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -D_GNU_SOURCE -I$(OTF_INC_DIR) -Itest/compat -std=c11 $(OPT) $(WARN) \
		$(filter -fsanitize%,$(CFLAGS)) -o $@ $< $(LDFLAGS) $(OTF_A) $(VFTR_LDLIBS)

# The reference headers do not pass vftr's warning set; they are the oracle's
# business, so its build uses plain -Wall.
$(TEST_DIR)/compat/ref/%: test/compat/%.c $(wildcard test/compat/*.h)
	$(call say,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -D_GNU_SOURCE $(REF_OTF_CFLAGS) -Itest/compat -std=gnu11 $(OPT) -Wall \
		-o $@ $< $(REF_OTF_LIBS)

INTEGRATION := $(sort $(wildcard test/integration/*.sh))

# Every test fragment adds its programs with `TEST_PROGRAMS += $(X_BINS)`.
# Recursively expanded on purpose: the list is expanded only when `check`
# runs, after every fragment is read, so a `X_BINS += ...` placed after the
# fragment's `TEST_PROGRAMS +=` line is still built.  (As a `:=` variable it
# took X_BINS as it stood at that line and silently dropped later additions.)
# The top Makefile fails the parse if it ever becomes simply expanded again.
TEST_PROGRAMS = $(UNIT_BIN) $(COMPAT_VFTR) $(COMPAT_REF)

unit: $(UNIT_BIN)

check: deps
	$(Q)$(MAKE) --no-print-directory all $(TEST_PROGRAMS)
	$(Q)BUILD=$(BUILD) sh test/run.sh $(UNIT_BIN) $(INTEGRATION)

# Unit suites only (used by CI under the sanitizers).
check-unit: deps
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BIN)
	$(Q)BUILD=$(BUILD) sh test/run.sh $(UNIT_BIN)
