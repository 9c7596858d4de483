! symfort_mod.f90 — a module procedure (gfortran: __mymod_MOD_work) and a
! plain external subroutine (plainsub_) for symfort.c.
module mymod
contains
  subroutine work(n)
    integer, intent(inout) :: n
    n = n + 1
  end subroutine work
end module mymod

subroutine plainsub(n)
  integer, intent(inout) :: n
  n = n * 2
end subroutine plainsub
