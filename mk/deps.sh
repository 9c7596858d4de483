#!/bin/sh
# Installs the Debian packages that vftr's build, tests and benchmarks use and
# that are missing on this machine.  As root it runs apt-get; otherwise it prints
# the one command to run and exits 1.  The list is the single place where vftr's
# system dependencies are named.
set -eu

PACKAGES="build-essential make pkg-config python3 zlib1g-dev libisal-dev \
libcjson-dev libpcre2-dev libncurses-dev check \
libopenmpi-dev openmpi-bin gfortran clang libomp-dev libclang-rt-14-dev llvm \
otf-trace libopen-trace-format-dev swig python3-dev tmux uftrace valgrind libdw-dev \
libopen-trace-format2-dev otf2-tools python3-otf2 protobuf-compiler chromium \
libunwind-dev libpapi-dev papi-tools"

missing=""
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done

if [ -z "$missing" ]; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "vftr: missing Debian packages; run as root:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
    exit 1
fi

echo "vftr: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
