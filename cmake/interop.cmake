# interop (interp/interop): TensorFlow GraphDef import and export. Its two
# translation tables are compiled in (interp/interop/tf_tables.h) from
# ops/tf_op_map.tsv and interp/interop/tf_op_signatures.tsv; an edit to
# either re-runs CMake, which regenerates the source.
set(tfg_interop_tables ${CMAKE_SOURCE_DIR}/ops/tf_op_map.tsv ${CMAKE_SOURCE_DIR}/interp/interop/tf_op_signatures.tsv)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${tfg_interop_tables})
file(READ ${CMAKE_SOURCE_DIR}/ops/tf_op_map.tsv TFG_TF_OP_MAP)
file(READ ${CMAKE_SOURCE_DIR}/interp/interop/tf_op_signatures.tsv TFG_TF_OP_SIGNATURES)
configure_file(${CMAKE_SOURCE_DIR}/interp/interop/tf_tables_data.cc.in
  ${CMAKE_BINARY_DIR}/generated/interop/tf_tables_data.cc @ONLY)
target_sources(tfg_interop PRIVATE ${CMAKE_BINARY_DIR}/generated/interop/tf_tables_data.cc)
target_link_libraries(tfg_interop PUBLIC tfg_proto)
