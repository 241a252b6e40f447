# The layers of tfg. CMakeLists.txt declares them, bottom to top, with
# tfg_layer(): that list is the architecture. docs/architecture.md draws
# it, and scripts/check-layers reads it (a CTest test) to refuse an
# #include against its order.
#
# tfg_layer(<name> DIRS <dir>... [DEPENDS <layer>...]) makes the static
# library tfg_<name> of the .cc files under its DIRS (recursively) and
# links it to the layers it DEPENDS on, and only to them. A layer sees its
# own headers and those of the layers below it, and no others: its include
# path is a folder of links to its own DIRS
# (${CMAKE_BINARY_DIR}/layers/<name>/<dir> -> <dir>), and it inherits the
# folders of the layers it depends on. An #include of a layer above (or
# beside) fails to compile with "No such file or directory".
#
# Ops, kernels, builtins and devices register themselves from static
# initializers, so every layer is linked whole (WHOLE_ARCHIVE), everywhere
# it is linked: one feature for each library on every link line.

# Sources of ops/, devices/ and net/ that cmake/cuda.cmake dropped (CUDA
# off, or no cuDNN headers) are not compiled.
function(_tfg_layer_sources out)
  set(sources)
  foreach(dir ${ARGN})
    file(GLOB_RECURSE found CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/${dir}/*.cc)
    foreach(src ${found})
      if(src MATCHES "^${CMAKE_SOURCE_DIR}/(ops|devices|net)/" AND NOT src IN_LIST OPS_SOURCES)
        continue()
      endif()
      list(APPEND sources ${src})
    endforeach()
  endforeach()
  set(${out} ${sources} PARENT_SCOPE)
endfunction()

function(tfg_layer name)
  cmake_parse_arguments(L "" "" "DIRS;DEPENDS" ${ARGN})
  _tfg_layer_sources(sources ${L_DIRS})
  add_library(tfg_${name} STATIC ${sources})
  set(view ${CMAKE_BINARY_DIR}/layers/${name})
  foreach(dir ${L_DIRS})
    get_filename_component(parent ${view}/${dir} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${dir} ${view}/${dir} SYMBOLIC)
  endforeach()
  target_include_directories(tfg_${name} PUBLIC ${view})
  target_compile_options(tfg_${name} PRIVATE -Wall -Wextra)
  foreach(dep ${L_DEPENDS})
    target_link_libraries(tfg_${name} PUBLIC "$<LINK_LIBRARY:WHOLE_ARCHIVE,tfg_${dep}>")
  endforeach()
  set_property(GLOBAL APPEND PROPERTY TFG_LAYERS ${name})
endfunction()
