# Decides whether the Python extension (nanobind) is built.
# Out: TRELLIS_HAVE_PYTHON (ON/OFF), TRELLIS_PYTHON_REASON (why it is off).
# When on, every library is compiled as position-independent code so the
# static libraries can be linked into the extension module.
set(TRELLIS_PYTHON "AUTO" CACHE STRING "Build the Python extension: ON, OFF or AUTO (when Python and nanobind are found)")
set_property(CACHE TRELLIS_PYTHON PROPERTY STRINGS ON OFF AUTO)

string(TOUPPER "${TRELLIS_PYTHON}" _trellis_python_mode)
set(TRELLIS_HAVE_PYTHON OFF)
set(TRELLIS_PYTHON_REASON "")

if(_trellis_python_mode STREQUAL "OFF")
  set(TRELLIS_PYTHON_REASON "disabled with -DTRELLIS_PYTHON=OFF")
elseif(TRELLIS_SANITIZE OR TRELLIS_FUZZ)
  # An ASan-instrumented extension cannot load into an uninstrumented python.
  set(TRELLIS_PYTHON_REASON "not with TRELLIS_SANITIZE or TRELLIS_FUZZ")
else()
  find_package(Python 3.8 COMPONENTS Interpreter Development.Module QUIET)
  if(Python_FOUND)
    execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
                    OUTPUT_VARIABLE _trellis_nanobind_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE _trellis_nanobind_status ERROR_QUIET)
    if(_trellis_nanobind_status EQUAL 0)
      list(APPEND CMAKE_PREFIX_PATH "${_trellis_nanobind_dir}")
    endif()
    find_package(nanobind CONFIG QUIET)
  endif()
  if(NOT Python_FOUND)
    set(TRELLIS_PYTHON_REASON "no Python 3 with its development headers")
  elseif(NOT nanobind_FOUND)
    set(TRELLIS_PYTHON_REASON "nanobind not found for ${Python_EXECUTABLE} (pip install nanobind)")
  else()
    set(TRELLIS_HAVE_PYTHON ON)
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  endif()
  if(NOT TRELLIS_HAVE_PYTHON AND _trellis_python_mode STREQUAL "ON")
    message(FATAL_ERROR "-DTRELLIS_PYTHON=ON but ${TRELLIS_PYTHON_REASON}")
  endif()
endif()
