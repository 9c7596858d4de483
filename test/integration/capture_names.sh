#!/bin/bash
# capture_names.sh — function names from the ELF symbol tables, with their
# call counts: C++ names demangled by default and mangled with
# demangle_cxx = false (the names below are written by hand from the
# Itanium C++ ABI), Fortran module procedures as module::name by default
# and with Vftrace's strip_module_names = true (the module is never
# dropped), the symbols with it false, the main program by its
# PROGRAM name.  (test/integration/names_golden.sh has the golden lists for
# every compiler.)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../capture/common.sh
. "$here/../capture/common.sh"
require "$CAPDIR/cap_cxx"

# names WHAT DIR PAIRS...: each "NAME=COUNT" must have COUNT enters and exits.
names() {
    local what=$1 dir=$2 vfd p; shift 2
    check "$what: exit status" 0 "$(cat "$dir/.rc")"
    if ! vfd=$(only_file "$dir" '*.vfd') || ! vfdc "$vfd"; then
        fail "$what: no readable .vfd $vfd"; show "$dir/.stderr"; return
    fi
    for p in "$@"; do
        check "$what: '${p%=*}' entered ${p##*=} times" "${p##*=}" "$(venter "$vfd" "${p%=*}")"
        check "$what: '${p%=*}' left ${p##*=} times" "${p##*=}" "$(vexit "$vfd" "${p%=*}")"
    done
    check "$what: every event named" 0 "$(vkey "$vfd" unnamed)"
}

d=$cap_tmp/cxx
vrun "$d" "$CAPDIR/cap_cxx" 50
names "C++ demangled by default" "$d" "geo::Square::area() const=50" \
      "int geo::twice<int>(int)=50" "geo::scale(int)=50" "geo::scale(double)=50" main=1
[ -f "$d/cap_cxx_0.log" ] &&
    check "C++ demangled: the log shows the name" 50 "$(logcalls "$d/cap_cxx_0.log" "geo::scale(double)")"

d=$cap_tmp/cxxm
VFTR_DEMANGLE_CXX=0 vrun "$d" "$CAPDIR/cap_cxx" 50
names "C++ mangled (demangle_cxx = false)" "$d" _ZNK3geo6Square4areaEv=50 \
      _ZN3geo5twiceIiEET_S1_=50 _ZN3geo5scaleEi=50 _ZN3geo5scaleEd=50 main=1

if [ -x "$CAPDIR/cap_fortran" ]; then
    d=$cap_tmp/f
    vrun "$d" "$CAPDIR/cap_fortran"
    names "Fortran" "$d" physics::advance=100 relax_=100 cap_fortran=1
    d=$cap_tmp/fs
    VFTR_STRIP_MODULE_NAMES=1 vrun "$d" "$CAPDIR/cap_fortran"
    names "Fortran, strip_module_names = true: the module stays" "$d" physics::advance=100 \
        relax_=100 cap_fortran=1
    d=$cap_tmp/fr
    VFTR_STRIP_MODULE_NAMES=0 vrun "$d" "$CAPDIR/cap_fortran"
    names "Fortran, strip_module_names = false: the symbols" "$d" __physics_MOD_advance=100 \
        relax_=100 cap_fortran=1
else
    echo "note: gfortran not found, Fortran names not tested"
fi

finish
