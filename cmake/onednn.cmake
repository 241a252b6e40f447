# oneDNN (Debian's libdnnl-dev, installed by scripts/setup) for the f32 CPU
# convolutions (ops/nn/conv2d_onednn.cc, ops/nn/conv_backend.h). Optional:
# without the library, or configured with -DTFG_WITH_ONEDNN=OFF, every
# convolution runs the im2col + GEMM implementation (ops/nn/conv2d_impl.h).
# Only that one file sees oneDNN's headers and the TFG_HAVE_ONEDNN define,
# so switching it rebuilds one file.
option(TFG_WITH_ONEDNN "Run CPU convolutions with oneDNN when libdnnl is installed" ON)
if(TFG_WITH_ONEDNN)
  find_path(TFG_DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
  find_library(TFG_DNNL_LIBRARY dnnl)
endif()
if(TFG_WITH_ONEDNN AND TFG_DNNL_INCLUDE_DIR AND TFG_DNNL_LIBRARY)
  message(STATUS "oneDNN: ${TFG_DNNL_LIBRARY} runs the CPU convolutions")
  set_source_files_properties(${CMAKE_SOURCE_DIR}/ops/nn/conv2d_onednn.cc PROPERTIES
    COMPILE_OPTIONS "-DTFG_HAVE_ONEDNN=1;-I${TFG_DNNL_INCLUDE_DIR}")
  target_link_libraries(tfg_ops PUBLIC ${TFG_DNNL_LIBRARY})
else()
  message(STATUS "oneDNN not used (install libdnnl-dev): CPU convolutions run im2col + GEMM")
endif()
