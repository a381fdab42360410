# MPI for searches spread over processes (docs/align.md, "Sharded search").
# In: TRELLIS_MPI (ON, OFF or AUTO).
# Out: TRELLIS_HAVE_MPI (ON/OFF), TRELLIS_MPI_REASON (why it is off).
# Without MPI the binary runs as one process; with it, the same binary runs
# alone as well and joins a job only when an MPI launcher started it.
set(TRELLIS_MPI "AUTO" CACHE STRING "Searches over MPI processes: ON, OFF or AUTO (when find_package(MPI) finds it)")
set_property(CACHE TRELLIS_MPI PROPERTY STRINGS ON OFF AUTO)
string(TOUPPER "${TRELLIS_MPI}" _trellis_mpi_mode)

set(TRELLIS_HAVE_MPI OFF)
set(TRELLIS_MPI_REASON "")
if(_trellis_mpi_mode STREQUAL "OFF")
  set(TRELLIS_MPI_REASON "TRELLIS_MPI=OFF")
elseif(_trellis_mpi_mode STREQUAL "AUTO" AND (TRELLIS_SANITIZE OR TRELLIS_FUZZ))
  # Open MPI keeps allocations past MPI_Finalize, which LeakSanitizer would
  # report in every process of a job.
  set(TRELLIS_MPI_REASON "not with TRELLIS_SANITIZE or TRELLIS_FUZZ unless -DTRELLIS_MPI=ON")
else()
  set(MPI_CXX_SKIP_MPICXX ON)  # the C API only, not the deprecated C++ bindings
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(TRELLIS_HAVE_MPI ON)
  elseif(_trellis_mpi_mode STREQUAL "ON")
    message(FATAL_ERROR "TRELLIS_MPI=ON but no MPI was found (Debian: apt-get install libopenmpi-dev openmpi-bin)")
  else()
    set(TRELLIS_MPI_REASON "no MPI found (Debian: libopenmpi-dev openmpi-bin)")
  endif()
endif()
