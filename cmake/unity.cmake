# Unity (jumbo) builds. Each op and test file under the sanitizers spent
# most of its compile parsing the same headers (Eigen, the op registry,
# GoogleTest) and instantiating the same templates; compiled a few files at
# a time, in one translation unit, they take a third to a half of that.
# Groups follow directories, a few files each, so an edit recompiles its
# group rather than everything, and two cores still have groups to share.
# -DTFG_UNITY=OFF compiles every file on its own (e.g. to check that a file
# includes what it uses).
#
# Files of one group share a translation unit: two anonymous-namespace
# helpers of the same name in one group collide, and a file-level
# `using namespace` reaches the files after it. So no two files of a
# directory define the same helper name in the same namespace: give each
# helper a distinct name, or put a file's helpers in a namespace named
# after what they implement, the op family and op
# (`namespace tfg::math::softmax_grad {`), never after how it is compiled.
# SKIP_UNITY_BUILD_INCLUSION keeps a file out when that is not possible
# (files with their own compile options are kept out by CMake).
option(TFG_UNITY "Compile the op library and the unit tests in unity groups" ON)
set(TFG_UNITY_GROUP_SIZE 8 CACHE STRING "Most files in one unity group")

# tfg_unity_groups(<target> <root> <dir>...): groups the sources of <target>
# that lie directly in <root>/<dir> (not in its subdirectories), for each
# <dir>, into unity groups of at most TFG_UNITY_GROUP_SIZE files. Sources
# of other directories keep being compiled one by one.
function(tfg_unity_groups target root)
  if(NOT TFG_UNITY)
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  foreach(dir ${ARGN})
    set(members)
    foreach(src ${sources})
      get_filename_component(src_dir ${src} DIRECTORY)
      get_source_file_property(skip ${src} SKIP_UNITY_BUILD_INCLUSION)
      get_source_file_property(options ${src} COMPILE_OPTIONS)
      if(src_dir STREQUAL "${root}/${dir}" AND NOT skip AND NOT options)
        list(APPEND members ${src})
      endif()
    endforeach()
    _tfg_unity_assign("${dir}" "${members}")
  endforeach()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
endfunction()

# Splits <members> (sorted) into the fewest groups of at most
# TFG_UNITY_GROUP_SIZE files, of nearly equal sizes, named after <dir>.
function(_tfg_unity_assign dir members)
  list(LENGTH members count)
  if(count LESS 2)
    return()  # a group of one saves nothing
  endif()
  list(SORT members)
  math(EXPR groups "(${count} + ${TFG_UNITY_GROUP_SIZE} - 1) / ${TFG_UNITY_GROUP_SIZE}")
  string(REGEX REPLACE "[^A-Za-z0-9]" "_" stem "${dir}")
  set(index 0)
  foreach(group RANGE 1 ${groups})
    # Group g takes files [count*(g-1)/groups, count*g/groups).
    math(EXPR end "${count} * ${group} / ${groups}")
    set(files)
    while(index LESS end)
      list(GET members ${index} file)
      list(APPEND files ${file})
      math(EXPR index "${index} + 1")
    endwhile()
    set_source_files_properties(${files} PROPERTIES UNITY_GROUP ${stem}_${group})
  endforeach()
endfunction()
