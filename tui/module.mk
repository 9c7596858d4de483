# tui — vftr-tui, the ncurses trace browser.  Only tui/screen.c includes
# curses; the model (tui/model.c) and the key table (tui/keys.c) are plain C
# that the unit tests link without a terminal (TUI_CORE_OBJ).

TUI_SRC      := $(wildcard tui/*.c)
TUI_OBJ      := $(patsubst %.c,$(OBJ)/%.o,$(TUI_SRC))
TUI_CORE_OBJ := $(OBJ)/tui/model.o $(OBJ)/tui/keys.o $(OBJ)/tui/snaprun.o $(OBJ)/tui/comm.o \
                $(OBJ)/tui/waits.o
TUI_LDLIBS   := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)

$(OBJ)/tui/%.o: CPPFLAGS += -DVFTR_VERSION=\"$(VERSION)\" -Itui

$(BIN)/vftr-tui: $(TUI_OBJ) $(VFTR_MODEL_A) $(VFTR_UTIL_A) $(VFTR_VFD_A) $(OTF_A)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(TUI_OBJ) $(VFTR_MODEL_A) $(VFTR_UTIL_A) $(VFTR_VFD_A) $(OTF_A) $(TUI_LDLIBS) $(VFTR_LDLIBS)

all: $(BIN)/vftr-tui

# Unit suites of the TUI model link its curses-free objects.
$(TEST_DIR)/unit/test_tui_%: $(OBJ)/test/unit/test_tui_%.o $(TUI_CORE_OBJ) $(VFTR_LIBS)
	$(call say,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(TUI_CORE_OBJ) $(VFTR_LIBS) $(VFTR_LDLIBS) $(CHECK_LIBS)
$(OBJ)/test/unit/test_tui_%.o: CPPFLAGS += -Itui
