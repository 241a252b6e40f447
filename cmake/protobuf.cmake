# The protobuf messages of TensorBoard's file formats (proto/*.proto:
# Event, Summary, HistogramProto, GraphDef), compiled to C++ at build time
# into tfg_proto, which the runtime links. Generated code is never committed.
find_package(Protobuf REQUIRED)

file(GLOB TFG_PROTO_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/proto/*.proto)
set(TFG_PROTO_GEN_DIR ${CMAKE_BINARY_DIR}/generated)
set(TFG_PROTO_SOURCES)
foreach(proto ${TFG_PROTO_FILES})
  get_filename_component(stem ${proto} NAME_WE)
  set(out ${TFG_PROTO_GEN_DIR}/proto/${stem}.pb.cc ${TFG_PROTO_GEN_DIR}/proto/${stem}.pb.h)
  # Imports name files from the repository root ("proto/types.proto"), so
  # the generated headers are included as "proto/types.pb.h".
  add_custom_command(
    OUTPUT ${out}
    COMMAND protobuf::protoc --cpp_out=${TFG_PROTO_GEN_DIR} -I ${CMAKE_SOURCE_DIR} ${proto}
    DEPENDS ${proto} protobuf::protoc
    COMMENT "Generating C++ from proto/${stem}.proto")
  list(APPEND TFG_PROTO_SOURCES ${out})
endforeach()

add_library(tfg_proto STATIC ${TFG_PROTO_SOURCES})
# Generated code: no warnings of ours.
set_target_properties(tfg_proto PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_compile_options(tfg_proto PRIVATE -w)
target_include_directories(tfg_proto SYSTEM PUBLIC ${TFG_PROTO_GEN_DIR} ${Protobuf_INCLUDE_DIRS})
target_link_libraries(tfg_proto PUBLIC protobuf::libprotobuf)
target_link_libraries(tfg_ops PUBLIC tfg_proto)
