# capture/papi — the PAPI backend of capture's counters (vftr_papi.h).
#
# Built from papi.c and linked with libpapi when pkg-config finds PAPI
# (Debian: libpapi-dev), or when <papi.h> compiles without it; from stub.c
# otherwise (a PAPI name in counters.events is then an unknown name, said
# with the reason).  `make PAPI=no` builds the stub on a machine with PAPI.
# Included by capture/module.mk before it lists the capture objects.

ifeq ($(origin PAPI),undefined)
PAPI := $(if $(shell pkg-config --exists papi 2>/dev/null && echo y || \
               (echo '\#include <papi.h>' | $(CC) -E -x c - >/dev/null 2>&1 && echo y)),yes,no)
endif

ifeq ($(PAPI),yes)
CAPTURE_PAPI_OBJ := $(OBJ)/capture/papi/papi.o
PAPI_CFLAGS := $(shell pkg-config --cflags papi 2>/dev/null)
PAPI_LIBS   := $(or $(shell pkg-config --libs papi 2>/dev/null),-lpapi)
$(OBJ)/capture/papi/papi.o: CPPFLAGS += $(PAPI_CFLAGS)
CAPTURE_LDLIBS += $(PAPI_LIBS)
else
CAPTURE_PAPI_OBJ := $(OBJ)/capture/papi/stub.o
endif
