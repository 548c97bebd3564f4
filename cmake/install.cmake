# SPDX-License-Identifier: MIT
# What `cmake --install` puts under the prefix (docs/install.md), and the .deb of `cpack -G DEB`:
#   include/orca/*.h                        the public headers
#   LIBDIR/liborca.a, liborca.so.0.3.0      the libraries (liborca.so.0.3, the SONAME, and
#                                           liborca.so links)
#   LIBDIR/cmake/orca/                      the CMake package (orcaConfig.cmake, the version
#                                           file, the exported targets)
#   LIBDIR/pkgconfig/orca.pc                for pkg-config
#   bin/orca                                the command (cli/CMakeLists.txt)
#   share/doc/orca/                         LICENSE, README.md, CHANGELOG.md, docs/
include(CMakePackageConfigHelpers)

set(ORCA_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/orca" CACHE STRING
    "Where the CMake package goes, relative to the prefix")

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/orca" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        FILES_MATCHING PATTERN "*.h")

install(TARGETS ${orca_library_targets} EXPORT orcaTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(EXPORT orcaTargets NAMESPACE orca:: DESTINATION "${ORCA_INSTALL_CMAKEDIR}"
        FILE orcaTargets.cmake)

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/orcaConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/orcaConfig.cmake"
                              INSTALL_DESTINATION "${ORCA_INSTALL_CMAKEDIR}")
# docs/install.md, "Versions": within a major version the API only grows, except while the major
# version is 0, when each minor version may change it. So find_package(orca 0.3) accepts 0.3.x
# and no other 0.x (SameMinorVersion), and find_package(orca 1.2) any later 1.x.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(orca_version_compatibility SameMinorVersion)
else()
  set(orca_version_compatibility SameMajorVersion)
endif()
write_basic_package_version_file("${PROJECT_BINARY_DIR}/orcaConfigVersion.cmake"
                                 VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY ${orca_version_compatibility})
install(FILES "${PROJECT_BINARY_DIR}/orcaConfig.cmake" "${PROJECT_BINARY_DIR}/orcaConfigVersion.cmake"
        DESTINATION "${ORCA_INSTALL_CMAKEDIR}")

# orca.pc finds the prefix from its own place (${pcfiledir}), so the same file is right for
# `cmake --install --prefix ANYWHERE` and for the .deb (/usr).
function(orca_pc_path var dir)
  if(IS_ABSOLUTE "${dir}")
    set(${var} "${dir}" PARENT_SCOPE)
  else()
    set(${var} "\${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(orca_pc_prefix "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH orca_pc_up "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/+$" "" orca_pc_up "${orca_pc_up}") # "../.." (CMake gives "../../")
  set(orca_pc_prefix "\${pcfiledir}/${orca_pc_up}")
endif()
orca_pc_path(orca_pc_libdir "${CMAKE_INSTALL_LIBDIR}")
orca_pc_path(orca_pc_includedir "${CMAKE_INSTALL_INCLUDEDIR}")
string(REPLACE ";" " " orca_pc_cflags "${ORCA_FP_FLAGS}")
configure_file("${PROJECT_SOURCE_DIR}/cmake/orca.pc.in" "${PROJECT_BINARY_DIR}/orca.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/orca.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/README.md"
              "${PROJECT_SOURCE_DIR}/CHANGELOG.md"
        DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}/docs")

# cpack -G DEB (in the build directory): orca_VERSION_ARCH.deb with everything above under /usr.
# The architecture comes from dpkg, the dependencies from dpkg-shlibdeps (libc6).
set(CPACK_PACKAGE_NAME orca)
set(CPACK_PACKAGE_VENDOR "the orca authors")
set(CPACK_PACKAGE_CONTACT "the orca authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "deterministic ORCA crowd collision avoidance, the same bits everywhere")
set(CPACK_PACKAGE_DESCRIPTION
    "orca steers crowds of agents around each other and around walls by optimal reciprocal\n\
collision avoidance (ORCA), with the same bits on every compiler, CPU, operating system and\n\
thread count. This package holds the C library (liborca.so, liborca.a), its headers, the\n\
CMake package and pkg-config file, and the orca command.")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
