# Decides whether the CUDA backend is built and sets up the language if so.
# Out: TRELLIS_HAVE_CUDA (ON/OFF), TRELLIS_CUDA_REASON (why it is off).
include(CheckLanguage)

string(TOUPPER "${TRELLIS_CUDA}" _trellis_cuda_mode)
set(TRELLIS_HAVE_CUDA OFF)
set(TRELLIS_CUDA_REASON "")

if(_trellis_cuda_mode STREQUAL "OFF")
  set(TRELLIS_CUDA_REASON "disabled with -DTRELLIS_CUDA=OFF")
elseif(_trellis_cuda_mode STREQUAL "ON" OR _trellis_cuda_mode STREQUAL "AUTO")
  # nvcc lives outside PATH in the usual toolkit install; look there too.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    # CMake 3.25 does not know that nvcc 12+ speaks C++20 and would refuse
    # CUDA_STANDARD 20 (or drop it silently); teach it the flag.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(TRELLIS_HAVE_CUDA ON)
  elseif(_trellis_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "-DTRELLIS_CUDA=ON but no CUDA compiler (nvcc) was found; "
                        "install the CUDA toolkit or set CMAKE_CUDA_COMPILER")
  else()
    set(TRELLIS_CUDA_REASON "no CUDA compiler (nvcc) found")
  endif()
else()
  message(FATAL_ERROR "TRELLIS_CUDA must be ON, OFF or AUTO, not '${TRELLIS_CUDA}'")
endif()

# compute-sanitizer's racecheck reports a shared word's relaxed loads
# against its relaxed stores, which the memory model defines; it accepts them
# against atomic exchanges. With this option the sweeping searches store
# their labels by atomic exchange (slower), so a racecheck run shows every
# other hazard. For sanitizer builds only.
option(TRELLIS_CUDA_RACECHECK "Store the sweeping searches' shared labels by atomic exchange, for racecheck runs" OFF)

# Settings every target with .cu sources shares.
function(trellis_cuda_target target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall,-Wextra>)
  if(TRELLIS_CUDA_RACECHECK)
    target_compile_definitions(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:TRELLIS_RACECHECK_STORES=1>)
  endif()
  set_target_properties(${target} PROPERTIES CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON CUDA_EXTENSIONS OFF)
endfunction()
