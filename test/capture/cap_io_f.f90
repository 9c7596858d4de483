! cap_io_f — Fortran I/O under capture: libgfortran's runtime opens, reads,
! writes, seeks and closes its units through the POSIX calls capture
! interposes.  The program knows what it opens and closes and how many
! bytes it writes (unformatted stream records of known size, formatted
! lines of known length); capture_io.sh compares those, and the reads,
! writes and seeks per file with what strace sees libgfortran call.
! Output: "E NAME OPENS CLOSES BYTES_WRITTEN" per file.
program cap_io_f
  implicit none
  integer :: i, u, ios, opens_a, opens_b, written_a, written_b
  real(8) :: a(1000)
  character(len=80) :: line

  a = 1.0d0
  opens_a = 0
  opens_b = 0
  written_a = 0
  written_b = 0

  open(newunit=u, file='fa.bin', access='stream', form='unformatted', status='replace')
  opens_a = opens_a + 1
  do i = 1, 20
    write(u) a(1:i*10)
    written_a = written_a + i * 10 * 8
  end do
  close(u)

  open(newunit=u, file='fb.txt', status='replace', action='write')
  opens_b = opens_b + 1
  do i = 1, 100
    write(u, '(A,I5)') 'line ', i
    written_b = written_b + 11
  end do
  close(u)

  open(newunit=u, file='fa.bin', access='stream', form='unformatted', status='old', action='read')
  opens_a = opens_a + 1
  read(u) a(1:100)
  read(u, pos=801) a(1:50)
  close(u)

  open(newunit=u, file='fb.txt', status='old', action='read')
  opens_b = opens_b + 1
  do
    read(u, '(A)', iostat=ios) line
    if (ios /= 0) exit
  end do
  close(u)

  write(*, '(A,I0,A,I0,A,I0)') 'E fa.bin ', opens_a, ' ', opens_a, ' ', written_a
  write(*, '(A,I0,A,I0,A,I0)') 'E fb.txt ', opens_b, ' ', opens_b, ' ', written_b
end program cap_io_f
