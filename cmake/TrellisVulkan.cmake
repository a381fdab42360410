# Decides whether the Vulkan compute backend is built, and adds its sources
# once the libraries exist (trellis_vulkan_sources(), called after src/).
# Out: TRELLIS_HAVE_VULKAN (ON/OFF), TRELLIS_VULKAN_REASON (why it is off).
#
# Only the Vulkan headers and glslc are needed to build: the loader
# (libvulkan.so.1) is opened at run time, so a binary built with the backend
# still starts, and runs its other backends, where no loader is installed.
set(TRELLIS_VULKAN "AUTO" CACHE STRING "Build the Vulkan compute backend: ON, OFF or AUTO (when the Vulkan headers and glslc are found)")
set_property(CACHE TRELLIS_VULKAN PROPERTY STRINGS ON OFF AUTO)

string(TOUPPER "${TRELLIS_VULKAN}" _trellis_vulkan_mode)
set(TRELLIS_HAVE_VULKAN OFF)
set(TRELLIS_VULKAN_REASON "")

if(_trellis_vulkan_mode STREQUAL "OFF")
  set(TRELLIS_VULKAN_REASON "disabled with -DTRELLIS_VULKAN=OFF")
elseif(_trellis_vulkan_mode STREQUAL "AUTO" AND (TRELLIS_SANITIZE OR TRELLIS_FUZZ))
  # The drivers the tests would run on leak at unload (Mesa's lavapipe, a
  # few allocations in the driver's own code), which LeakSanitizer reports
  # as the test's failure; -DTRELLIS_VULKAN=ON builds it all the same.
  set(TRELLIS_VULKAN_REASON "not with TRELLIS_SANITIZE or TRELLIS_FUZZ unless -DTRELLIS_VULKAN=ON")
elseif(_trellis_vulkan_mode STREQUAL "ON" OR _trellis_vulkan_mode STREQUAL "AUTO")
  find_path(TRELLIS_VULKAN_INCLUDE_DIR vulkan/vulkan.h)
  find_program(TRELLIS_GLSLC glslc)
  if(TRELLIS_VULKAN_INCLUDE_DIR AND TRELLIS_GLSLC)
    set(TRELLIS_HAVE_VULKAN ON)
  else()
    set(_trellis_vulkan_missing "")
    if(NOT TRELLIS_VULKAN_INCLUDE_DIR)
      list(APPEND _trellis_vulkan_missing "the Vulkan headers (Debian: libvulkan-dev)")
    endif()
    if(NOT TRELLIS_GLSLC)
      list(APPEND _trellis_vulkan_missing "glslc (Debian: glslc)")
    endif()
    list(JOIN _trellis_vulkan_missing " and " _trellis_vulkan_missing)
    if(_trellis_vulkan_mode STREQUAL "ON")
      message(FATAL_ERROR "-DTRELLIS_VULKAN=ON but ${_trellis_vulkan_missing} not found")
    endif()
    set(TRELLIS_VULKAN_REASON "${_trellis_vulkan_missing} not found")
  endif()
else()
  message(FATAL_ERROR "TRELLIS_VULKAN must be ON, OFF or AUTO, not '${TRELLIS_VULKAN}'")
endif()

# Compiles src/<shader>.comp to SPIR-V as a C initializer list in the build
# folder (shaders/<shader>[_<variant>].spv.inc), which the backend's .cpp
# files #include. Each extra argument is one "<variant>:<define>,<define>..."
# compilation; none means one plain compilation.
function(_trellis_vulkan_shader out_var shader)
  set(variants ${ARGN})
  if(NOT variants)
    set(variants ":")
  endif()
  set(outputs "")
  foreach(variant IN LISTS variants)
    string(FIND "${variant}" ":" colon)
    string(SUBSTRING "${variant}" 0 ${colon} suffix)
    math(EXPR after "${colon} + 1")
    string(SUBSTRING "${variant}" ${after} -1 define_list)
    string(REPLACE "," ";" define_list "${define_list}")
    set(defines "")
    foreach(d IN LISTS define_list)
      list(APPEND defines "-D${d}")
    endforeach()
    set(name "${shader}")
    if(suffix)
      set(name "${shader}_${suffix}")
    endif()
    set(output "${PROJECT_BINARY_DIR}/shaders/${name}.spv.inc")
    get_filename_component(output_dir "${output}" DIRECTORY)
    add_custom_command(
      OUTPUT "${output}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${output_dir}"
      COMMAND "${TRELLIS_GLSLC}" --target-env=vulkan1.1 -O -Werror -mfmt=c ${defines}
              -MD -MF "${output}.d" -o "${output}" "${PROJECT_SOURCE_DIR}/src/${shader}.comp"
      DEPFILE "${output}.d"
      DEPENDS "${PROJECT_SOURCE_DIR}/src/${shader}.comp"
      COMMENT "glslc ${shader}.comp ${defines}"
      VERBATIM)
    list(APPEND outputs "${output}")
  endforeach()
  set(${out_var} ${${out_var}} ${outputs} PARENT_SCOPE)
endfunction()

function(trellis_vulkan_sources)
  set(src "${PROJECT_SOURCE_DIR}/src")
  if(NOT TRELLIS_HAVE_VULKAN)
    target_sources(trellis_core PRIVATE ${src}/core/vulkan/unavailable.cpp)
    target_sources(trellis_grid PRIVATE ${src}/grid/vulkan/unavailable.cpp)
    target_sources(trellis_graph PRIVATE ${src}/graph/vulkan/unavailable.cpp)
    target_sources(trellis_align PRIVATE ${src}/align/vulkan/unavailable.cpp)
    return()
  endif()
  set(shaders "")
  _trellis_vulkan_shader(shaders grid/vulkan/spmv "f32:REAL=float" "f64:REAL=double,REAL_IS_DOUBLE")
  _trellis_vulkan_shader(shaders grid/vulkan/cg_vectors "f32:REAL=float" "f64:REAL=double,REAL_IS_DOUBLE")
  _trellis_vulkan_shader(shaders grid/vulkan/matrix_free "f32:REAL=float" "f64:REAL=double,REAL_IS_DOUBLE")
  _trellis_vulkan_shader(shaders graph/vulkan/bellman_ford)
  _trellis_vulkan_shader(shaders align/vulkan/sw_scores "packed:PACKED" "exact:")
  add_custom_target(trellis_vulkan_shaders DEPENDS ${shaders})

  target_sources(trellis_core PRIVATE
    ${src}/core/vulkan/loader.cpp
    ${src}/core/vulkan/context.cpp
    ${src}/core/vulkan/buffer.cpp
    ${src}/core/vulkan/kernel.cpp
    ${src}/core/vulkan/devices.cpp)
  target_sources(trellis_grid PRIVATE ${src}/grid/vulkan/spmv.cpp ${src}/grid/vulkan/cg.cpp
                                      ${src}/grid/vulkan/matrix_free.cpp)
  target_sources(trellis_graph PRIVATE ${src}/graph/vulkan/bellman_ford.cpp)
  target_sources(trellis_align PRIVATE ${src}/align/vulkan/sw_scores.cpp)
  target_link_libraries(trellis_core PRIVATE ${CMAKE_DL_LIBS})
  foreach(library trellis_core trellis_grid trellis_graph trellis_align)
    # The Vulkan headers are a build-time need only (the loader is opened at
    # run time), so they stay off the installed targets' interface.
    target_include_directories(${library} SYSTEM PRIVATE ${TRELLIS_VULKAN_INCLUDE_DIR})
    target_include_directories(${library} PRIVATE ${src} ${PROJECT_BINARY_DIR}/shaders)
    target_compile_definitions(${library} PRIVATE VK_NO_PROTOTYPES)
    add_dependencies(${library} trellis_vulkan_shaders)
  endforeach()
endfunction()
