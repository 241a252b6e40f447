# oneDNN (Debian's libdnnl-dev, installed by scripts/setup) for the f32 CPU
# convolutions and max pooling (ops/nn/conv2d_onednn.cc, ops/nn/pool_onednn.cc,
# their shared ops/nn/onednn_runtime.cc; selection in ops/nn/conv_backend.cc).
# Optional: without the library, or configured with -DTFG_WITH_ONEDNN=OFF,
# every convolution runs the im2col + GEMM implementation
# (ops/nn/conv2d_impl.h) and every pool tfg's own loops (ops/nn/max_pool.cc).
# Only these files see oneDNN's headers and the TFG_HAVE_ONEDNN define, so
# switching it rebuilds four files.
option(TFG_WITH_ONEDNN "Run CPU convolutions and max pooling with oneDNN when libdnnl is installed" ON)
if(TFG_WITH_ONEDNN)
  find_path(TFG_DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
  find_library(TFG_DNNL_LIBRARY dnnl)
endif()
set(TFG_ONEDNN_SOURCES
  ${CMAKE_SOURCE_DIR}/ops/nn/conv2d_onednn.cc
  ${CMAKE_SOURCE_DIR}/ops/nn/pool_onednn.cc
  ${CMAKE_SOURCE_DIR}/ops/nn/onednn_runtime.cc
  ${CMAKE_SOURCE_DIR}/ops/nn/conv_backend.cc)
if(TFG_WITH_ONEDNN AND TFG_DNNL_INCLUDE_DIR AND TFG_DNNL_LIBRARY)
  message(STATUS "oneDNN: ${TFG_DNNL_LIBRARY} runs the CPU convolutions and max pooling")
  set_source_files_properties(${TFG_ONEDNN_SOURCES} PROPERTIES
    COMPILE_OPTIONS "-DTFG_HAVE_ONEDNN=1;-I${TFG_DNNL_INCLUDE_DIR}")
  target_link_libraries(tfg_ops PUBLIC ${TFG_DNNL_LIBRARY})
else()
  # The four files compile without it too: the kernels to their "not
  # built" stubs, the runtime helpers to nothing.
  message(STATUS "oneDNN not used (install libdnnl-dev): CPU convolutions run im2col + GEMM")
endif()
