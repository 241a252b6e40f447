# The CUDA device (devices/cuda/, ops/**/*_cuda.cc, ops/**/*.cu).
#
# TFG_CUDA=AUTO (default) builds it when nvcc is found, ON requires it, OFF
# leaves it out. Built or not, the binary runs without a GPU or driver:
# the CUDA runtime is linked statically, so a machine without a driver
# only sees CudaDeviceCount() == 0, and cuBLAS is loaded at first use.
#
# Included after OPS_SOURCES is globbed and before the layers are made
# (cmake/layers.cmake compiles only what is left of it):
# files that need the toolkit (names ending in `_cuda.cc` or `_cudnn.cc`, and
# devices/cuda/cuda_*.cc) leave the list when CUDA is off, and
# devices/cuda/no_cuda.cc (the device count 0 of a build without CUDA)
# leaves it when CUDA is on. tfg_link_cuda(<target>) then adds the .cu
# files and the libraries.
set(TFG_CUDA AUTO CACHE STRING "Build the CUDA device: AUTO (when nvcc is found), ON or OFF")
set_property(CACHE TFG_CUDA PROPERTY STRINGS AUTO ON OFF)

set(TFG_CUDA_ENABLED OFF)
if(NOT TFG_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER)
    find_program(TFG_NVCC nvcc HINTS ENV CUDA_PATH PATHS /usr/local/cuda/bin)
    if(TFG_NVCC)
      set(CMAKE_CUDA_COMPILER ${TFG_NVCC})
    endif()
  endif()
  if(CMAKE_CUDA_COMPILER)
    set(TFG_CUDA_ENABLED ON)
  elseif(TFG_CUDA STREQUAL "ON")
    message(FATAL_ERROR "TFG_CUDA=ON but nvcc was not found (put the CUDA toolkit's bin/ on PATH, "
                        "set CMAKE_CUDA_COMPILER, or configure with -DTFG_CUDA=AUTO or OFF)")
  endif()
endif()

if(NOT TFG_CUDA_ENABLED)
  message(STATUS "CUDA device: off (TFG_CUDA=${TFG_CUDA})")
  list(FILTER OPS_SOURCES EXCLUDE REGEX "(_cuda\\.cc|_cudnn\\.cc|/devices/cuda/cuda_[a-z_]+\\.cc)$")
  function(tfg_link_cuda target)
  endfunction()
  return()
endif()

# Real code for Hopper, PTX for Turing and later (the driver compiles it
# once, at first use): one SASS build keeps nvcc's time down.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 90-real 75-virtual)
endif()
# C++17: CMake 3.25 does not know nvcc's flag for C++20, and the device
# code needs nothing newer.
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
if(CCACHE)
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${CCACHE})
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)

list(FILTER OPS_SOURCES EXCLUDE REGEX "/devices/cuda/no_cuda\\.cc$")
# cuDNN (GPU convolutions) needs only its headers at build time; it is
# loaded at first use (devices/cuda/cuda_cudnn.cc). A toolkit without them
# builds devices/cuda/no_cudnn.cc instead of every *_cudnn.cc file.
find_path(TFG_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
if(TFG_CUDNN_INCLUDE_DIR)
  list(FILTER OPS_SOURCES EXCLUDE REGEX "/devices/cuda/no_cudnn\\.cc$")
  message(STATUS "cuDNN headers: ${TFG_CUDNN_INCLUDE_DIR} (cuDNN is loaded at first use)")
else()
  list(FILTER OPS_SOURCES EXCLUDE REGEX "(_cudnn\\.cc|/devices/cuda/cuda_cudnn\\.cc)$")
  message(STATUS "cuDNN headers not found: no GPU convolutions")
endif()
file(GLOB_RECURSE TFG_CUDA_KERNEL_SOURCES CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/ops/*.cu ${CMAKE_SOURCE_DIR}/devices/*.cu)
# The host side of GPU kernels includes the CUDA headers: kept out of the
# op directories' unity groups.
set(tfg_cuda_host_sources ${OPS_SOURCES})
list(FILTER tfg_cuda_host_sources INCLUDE REGEX "(_cuda\\.cc|_cudnn\\.cc|/devices/cuda/cuda_[a-z_]+\\.cc)$")
set_source_files_properties(${tfg_cuda_host_sources} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)

message(STATUS "CUDA device: on (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES})")

# The device code and its launchers (plain C++ signatures, in headers
# such as ops/math/cwise_cuda.h): their own object library, so the directory's
# and tfg_ops' host-only flags (-Wall, the sanitizers) never reach nvcc.
# They are not instrumented: their host part only fills in launch
# parameters.
add_library(tfg_cuda_kernels OBJECT ${TFG_CUDA_KERNEL_SOURCES})
set_target_properties(tfg_cuda_kernels PROPERTIES COMPILE_OPTIONS "")
target_include_directories(tfg_cuda_kernels PRIVATE ${CMAKE_SOURCE_DIR})
# std:: math and numeric_limits (constexpr host functions) of the shared
# functors (ops/math/cwise_functors.h) are used in device code. No product
# and sum are contracted into one FMA (--fmad=false), as on the CPU: then a
# fused elementwise kernel (NVRTC, devices/cuda/cuda_nvrtc.cc, same flag)
# gives the bits of its members' own kernels, whichever way the compiler
# would have contracted across them.
target_compile_options(tfg_cuda_kernels PRIVATE --expt-relaxed-constexpr --fmad=false -Xcompiler=-Wall,-Wextra)

# Only the files that use the toolkit see its headers, and the rest of the
# project compiles with the same command lines, CUDA or not (so their
# ccache entries stay valid): the include path goes on those files, and
# the libraries are link-only.
set_source_files_properties(${tfg_cuda_host_sources} PROPERTIES
  INCLUDE_DIRECTORIES "${CUDAToolkit_INCLUDE_DIRS};${TFG_CUDNN_INCLUDE_DIR}")
function(tfg_link_cuda target)
  target_sources(${target} PRIVATE $<TARGET_OBJECTS:tfg_cuda_kernels>)
  # cuBLAS is not linked: devices/cuda/cuda_cublas.cc loads it with dlopen
  # at its first use, so a process that never needs it (most, and every
  # one on a machine without a GPU) does not spend ~0.1 s loading it.
  target_link_libraries(${target} INTERFACE $<LINK_ONLY:CUDA::cudart_static> $<LINK_ONLY:${CMAKE_DL_LIBS}>)
endfunction()
