# Warnings for the project's own targets; with TRELLIS_WERROR (scripts/test
# sets it) any warning fails the build, .cu host code included.
option(TRELLIS_WERROR "Treat compiler warnings as errors" OFF)

function(trellis_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow>)
  if(TRELLIS_WERROR)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Werror>
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
  endif()
endfunction()
