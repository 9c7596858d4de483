! names_f — Fortran names (gfortran): module procedures, shown as
! module::procedure, and the main program, shown by its PROGRAM name (from
! the debug information; built without -g it is "main program").
! test/integration/names_golden.sh compares the names in the log and in the
! converted trace with test/data/names/fortran.txt.
module heat_mod
  implicit none
contains
  subroutine smooth(u, n)
    integer, intent(in) :: n
    real(8), intent(inout) :: u(n)
    integer :: i
    do i = 2, n - 1
      u(i) = 0.5d0 * u(i) + 0.25d0 * (u(i - 1) + u(i + 1))
    end do
  end subroutine smooth

  real(8) function total(u, n)
    integer, intent(in) :: n
    real(8), intent(in) :: u(n)
    total = sum(u)
  end function total
end module heat_mod

program heat_demo
  use heat_mod
  implicit none
  real(8) :: u(64)
  integer :: step
  u = 0
  u(32) = 1
  do step = 1, 10
    call smooth(u, 64)
  end do
  print '(a,f8.5)', 'total ', total(u, 64)
end program heat_demo
