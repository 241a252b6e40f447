# Installation and the Debian package (docs/cli.md, "Installing").
#
#   cmake --install build --prefix DIR    DIR/bin/tfg, DIR/share/tfg/{stdlib,examples},
#                                         DIR/share/man/man1/tfg.1, DIR/share/doc/tfg
#   scripts/package                       build/tfg_<version>_<arch>.deb (CPack)
#
# The installed tfg finds its standard library relative to itself
# (interp/language/stdlib_location.cc); the build folder is compiled into
# that one file only, to recognize a binary that was not installed.
include(GNUInstallDirs)
# `cmake --install`, the install target and cpack need tfg only, not every
# test and benchmark that `all` builds (scripts/package builds tfg first).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)

set_source_files_properties(${CMAKE_SOURCE_DIR}/interp/language/stdlib_location.cc PROPERTIES
  COMPILE_DEFINITIONS "TFG_BUILD_DIR=\"${CMAKE_BINARY_DIR}\"")

# The man page, from `tfg --help`, each time tfg is linked (milliseconds).
add_custom_command(TARGET tfg POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
          ${CMAKE_COMMAND} -DTFG=$<TARGET_FILE:tfg> -DVERSION=${PROJECT_VERSION}
          -DOUT=${CMAKE_BINARY_DIR}/tfg.1 -P ${CMAKE_SOURCE_DIR}/cmake/manpage.cmake
  VERBATIM)

install(TARGETS tfg RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/stdlib/ DESTINATION ${CMAKE_INSTALL_DATADIR}/tfg/stdlib
  FILES_MATCHING PATTERN "*.tfg")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/tfg/examples)
install(FILES ${CMAKE_BINARY_DIR}/tfg.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
  FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "*.svg")

# CPack: a .deb for /usr. Its library dependencies come from dpkg-shlibdeps
# (OpenBLAS, ZeroMQ, libedit, protobuf...); the Fashion-MNIST data the
# examples read is recommended, not required.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tfg)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "tfg maintainers <tfg@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "interpreter for a TensorFlow 1.x-style dataflow graph language")
set(CPACK_PACKAGE_DESCRIPTION "tfg parses .tfg scripts into a dataflow graph, differentiates it\nsymbolically and runs it on CPU kernels, CUDA kernels when a GPU is present,\nand other tfg processes over ZeroMQ.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS dataset-fashion-mnist)
set(CPACK_DEBIAN_PACKAGE_LICENSE Apache-2.0)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
include(CPack)
