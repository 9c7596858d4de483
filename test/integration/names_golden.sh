#!/bin/bash
# names_golden.sh — function names as the user knows them, by default, for
# every compiler installed: the programs of test/names/ (C with gcc and
# clang, C++ with g++ and clang++, Fortran with gfortran with and without
# -g, OpenMP with clang, whose libomp reports the regions, and with gcc,
# whose libgomp does not) run under vftr-run, and the function names of the
# profile log and of the converted trace (vfd2otf, then vftr-dump) must be
# exactly the golden list of test/data/names/ (vftr:setup, capture's own
# work, aside): C++ demangled, Fortran module procedures as module::name,
# the Fortran main program by its PROGRAM name ("main program" without
# debug information), OpenMP regions by kind and pragma line, no outlined
# function (.omp_outlined.*, *._omp_fn.*), a worker's idle time between
# regions as "omp idle", a worker's calls under its parallel region.  The
# pragmas' lines come from the markers "L:name" of names_omp.c.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"

NAMES=$cap_build/test/names
GOLD=$here/../data/names
SRC=$here/../names/names_omp.c
VFD2OTF=$cap_build/bin/vfd2otf
DUMP=$cap_build/bin/vftr-dump
STATS=$cap_build/bin/vftr-stats
require "$VFD2OTF" "$DUMP" "$STATS"

# golden FILE: the golden list with {marker} replaced by its line in SRC
golden() {
    local sedargs=() m
    for m in $(grep -o 'L:[a-z0-9]*' "$SRC" | cut -c3-); do
        sedargs+=(-e "s/{$m}/$(grep -n "L:$m\b" "$SRC" | cut -d: -f1)/g")
    done
    sed "${sedargs[@]}" "$1" | sort
}

# lognames LOG: the function names of the log's profile table
lognames() { logrows "$1" | cut -f1 | grep -vx 'vftr:setup' | sort -u; }
# tracenames DIR: the function names of DIR's trace converted to OTF
tracenames() {
    "$VFD2OTF" -q -o "$1/run" "$1" 2>"$1/.conv_err" &&
        "$DUMP" -d "$1/run.otf" | sed -n 's/^DefFunction .* name="\([^"]*\)".*/\1/p' |
        grep -vx 'vftr:setup' | sort -u
}

# same WHAT WANT GOT: two lists equal, else the difference
same() {
    if [ "$2" = "$3" ]; then pass "$1"
    else fail "$1 (< golden, > got)"; diff <(echo "$2") <(echo "$3") | show; fi
}

# names PROG GOLDEN [ENV...]: run PROG, compare the log and the trace
names() {
    local prog=$1 gold=$2 d want; shift 2
    if [ ! -x "$NAMES/$prog" ]; then
        skip "$prog" "its compiler is not installed"
        return
    fi
    d=$cap_tmp/$prog.$gold
    mkdir -p "$d"
    env OMP_NUM_THREADS=2 "$@" "$VFTR_RUN" --out "$d" -- "$NAMES/$prog" >"$d.stdout" 2>"$d.stderr"
    check "$prog: exit status" 0 $?
    want=$(golden "$GOLD/$gold")
    same "$prog: the log's function names are the golden list" "$want" \
        "$(lognames "$d/${prog}_0.log")"
    if [ "${VFTR_SAMPLING_ACTIVE:-}" != 0 ] && ! printf '%s\n' "$@" | grep -q '^VFTR_SAMPLING_ACTIVE=0'; then
        same "$prog: the converted trace's function names are the golden list" "$want" \
            "$(tracenames "$d")"
    fi
}

names names_c_gcc c.txt
names names_c_clang c.txt
names names_cxx_gxx cxx_gxx.txt
names names_cxx_clangxx cxx_clangxx.txt
names names_f_gfortran fortran.txt
names names_f_nog fortran_nog.txt
names names_omp_gcc omp_gcc.txt
names names_omp_clang omp_clang.txt
# without a trace libomp's regions are not asked for: the outlined
# functions are what is left of them, named after their pragmas
names names_omp_clang omp_clang_profile.txt VFTR_SAMPLING_ACTIVE=0

# vftr names and Vftrace's switches: mangled on demand, modules stripped
if [ -x "$NAMES/names_cxx_gxx" ]; then
    d=$cap_tmp/mangled
    mkdir -p "$d"
    VFTR_DEMANGLE_CXX=0 "$VFTR_RUN" --out "$d" -- "$NAMES/names_cxx_gxx" >/dev/null 2>&1
    check "demangle_cxx = false: the symbol table's names" "_ZN3geo6detail5scaleEi" \
        "$(lognames "$d/names_cxx_gxx_0.log" | grep -x '_ZN3geo6detail5scaleEi')"
fi
if [ -x "$NAMES/names_f_gfortran" ]; then
    d=$cap_tmp/stripped
    mkdir -p "$d"
    # a Vftrace user's strip_module_names = true keeps the module (issue 16)
    VFTR_STRIP_MODULE_NAMES=1 "$VFTR_RUN" --out "$d" -- "$NAMES/names_f_gfortran" >/dev/null 2>&1
    same "strip_module_names = true: module procedures keep their module" \
        "$(golden "$GOLD/fortran.txt")" "$(lognames "$d/names_f_gfortran_0.log")"
    d=$cap_tmp/raw
    mkdir -p "$d"
    VFTR_STRIP_MODULE_NAMES=0 "$VFTR_RUN" --out "$d" -- "$NAMES/names_f_gfortran" >/dev/null 2>&1
    same "strip_module_names = false: the symbol table's names" \
        "$(printf '%s\n' __heat_mod_MOD_smooth __heat_mod_MOD_total heat_demo main)" \
        "$(lognames "$d/names_f_gfortran_0.log")"
fi

# a worker's calls hang under its parallel region: the roots of every
# thread's call tree are main, the parallel regions and the idle time
if [ -x "$NAMES/names_omp_clang" ]; then
    d=$cap_tmp/names_omp_clang.omp_clang.txt
    roots=$("$STATS" --callpath --threads --csv "$d" 2>/dev/null |
            awk -F, 'NR > 1 && $4 == 1 && $5 != "vftr:setup" { print $5 }' | sort -u)
    same "OpenMP: the roots of the threads' call trees" \
        "$(golden <(printf '%s\n' main "omp idle" "omp parallel @names_omp.c:{par1}" \
                                 "omp parallel @names_omp.c:{par2}"))" "$roots"
    # the idle time is the worker's wait in the serial phase, not a barrier:
    # it spans the master's serial() (from the end of the first region to the
    # worker's start in the second), so it is at least serial()'s time, on
    # any load (whereas which OpenMP row is largest depends on the scheduler)
    times=$("$STATS" --csv "$d" 2>/dev/null |
            awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                     $c["function"] == "omp idle" { idle += $c["excl"] }
                     $c["function"] == "serial" { ser += $c["excl"] }
                     END { if (idle > 0 && ser > 0) print idle, ser }')
    if [ -n "$times" ] && awk -v t="$times" 'BEGIN { split(t, a, " "); exit !(a[1] >= a[2]) }'; then
        pass "OpenMP: the worker's wait between regions is idle time, covering serial() ($times)"
    else
        fail "OpenMP: the worker's wait between regions is idle time, covering serial() (idle, serial: '$times')"
    fi
fi
finish
