# `cmake --install`: the libraries, their public headers, the CLI and a
# package configuration, so that a downstream project writes
#   find_package(trellis 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE trellis::graph trellis::align)
# Targets: trellis::core, trellis::graph, trellis::grid, trellis::align,
# trellis::route (static libraries; each brings the ones it needs).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_trellis_exported trellis_core trellis_graph trellis_grid trellis_align trellis_route)
foreach(library ${_trellis_exported})
  string(REPLACE "trellis_" "" short ${library})
  set_target_properties(${library} PROPERTIES EXPORT_NAME ${short})
endforeach()

install(TARGETS ${_trellis_exported} EXPORT trellisTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
install(TARGETS trellis RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT development)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/trellis DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT development FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/include/trellis/core/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/trellis/core COMPONENT development)

set(_trellis_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/trellis)
install(EXPORT trellisTargets NAMESPACE trellis:: DESTINATION ${_trellis_cmake_dir} COMPONENT development)
# What the configuration file must find again for the exported targets.
set(TRELLIS_CONFIG_HAVE_CUDA ${TRELLIS_HAVE_CUDA})
set(TRELLIS_CONFIG_HAVE_MPI ${TRELLIS_HAVE_MPI})
set(TRELLIS_CONFIG_HAVE_CAIRO OFF)
if(TARGET PkgConfig::CAIRO)
  set(TRELLIS_CONFIG_HAVE_CAIRO ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/trellisConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/trellisConfig.cmake INSTALL_DESTINATION ${_trellis_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/trellisConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/trellisConfig.cmake ${PROJECT_BINARY_DIR}/trellisConfigVersion.cmake
        DESTINATION ${_trellis_cmake_dir} COMPONENT development)
