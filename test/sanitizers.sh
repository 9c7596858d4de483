# test/sanitizers.sh — sourced by test scripts whose runs go through
# libraries vftr does not build and that are not sanitized (Open MPI,
# libomp).  san_env LIB, LIB one of the build's libraries or tools: in an
# ASan build their leaks at exit are not counted (every other finding still
# fails the run); in a TSan build test/tsan.supp names them, their own
# locking being invisible to TSan (vftr's code is not covered by it).
# Scripts that source test/capture/common.sh or test/mpi/common.sh have
# this from there.
san_supp=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/tsan.supp
san_env() {
    case $(ldd "$1" 2>/dev/null) in
        *libasan*) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" ;;
        *libtsan*) export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}suppressions=$san_supp" ;;
    esac
}
