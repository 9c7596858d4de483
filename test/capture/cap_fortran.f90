! cap_fortran — Fortran names: a module procedure (gfortran's symbol
! __physics_MOD_advance, shown as physics::advance) and a plain external
! subroutine (relax_), each called 100 times; the program prints its own
! counts.
module physics
  implicit none
  integer :: n_advance = 0
contains
  subroutine advance(x)
    real(8), intent(inout) :: x
    n_advance = n_advance + 1
    x = x * 1.0001d0 + 1.0d0
  end subroutine advance
end module physics

subroutine relax(x, n)
  implicit none
  real(8), intent(inout) :: x
  integer, intent(inout) :: n
  n = n + 1
  x = x * 0.5d0
end subroutine relax

program cap_fortran
  use physics
  implicit none
  real(8) :: x
  integer :: i, n_relax
  x = 1.0d0
  n_relax = 0
  do i = 1, 100
    call advance(x)
    call relax(x, n_relax)
  end do
  print '(a,i0)', 'count advance ', n_advance
  print '(a,i0)', 'count relax ', n_relax
  if (x < 0) print *, x
end program cap_fortran
