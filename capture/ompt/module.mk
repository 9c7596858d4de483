# capture/ompt — build flags of capture/ompt.c, vftr's OpenMP tool (OMPT).
#
# <omp-tools.h> comes with LLVM's OpenMP runtime (Debian: libomp-14-dev) and
# lives in clang's resource directory, which clang searches by itself.  gcc
# gets that directory with -idirafter, i.e. after its own system headers, so
# that only omp-tools.h (which gcc does not have) is taken from it.  Without
# the header capture/ompt.c builds a stub ompt_start_tool that returns NULL.

OMPT_INCDIR := $(firstword $(patsubst %/omp-tools.h,%,$(wildcard \
	/usr/lib/llvm-*/lib/clang/*/include/omp-tools.h /usr/include/omp-tools.h)))

ifneq ($(OMPT_INCDIR),)
$(OBJ)/capture/ompt.o: CPPFLAGS += -idirafter $(OMPT_INCDIR)
endif

# The Check suite that drives the tool with a fake runtime needs the header too.
ifneq ($(OMPT_INCDIR),)
$(OBJ)/test/unit/test_capture_ompt.o: CPPFLAGS += -idirafter $(OMPT_INCDIR)
endif

# Source file:line of OpenMP regions (capture/ompt_lines.c) come from
# elfutils' libdw (Debian: libdw-dev).  The library is linked only into
# libvftrcapture (and what links its archive) and only when the compiler
# finds <elfutils/libdwfl.h>: the same test ompt_lines.c makes with
# __has_include, so a machine without libdw-dev builds the file without
# libdw and regions keep file "" / line 0.  CAPTURE_LDLIBS is used by the
# link recipes, which expand it when they run, after this fragment.
OMPT_LIBDW := $(shell echo '\#include <elfutils/libdwfl.h>' | \
                $(CC) $(CPPFLAGS) -E -x c - >/dev/null 2>&1 && echo yes)
ifeq ($(OMPT_LIBDW),yes)
CAPTURE_LDLIBS += -ldw
endif
