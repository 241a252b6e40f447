// Which implementation runs f32 conv2d and its two backprops on the CPU:
//   kOneDnn     oneDNN's JIT convolutions (ops/nn/conv2d_onednn.h), the
//               default when tfg was built with libdnnl (cmake/onednn.cmake);
//   kReference  im2col + GEMM (ops/nn/conv2d_impl.h), always built; f64 and
//               f16 always use it, and it is the fallback whenever oneDNN
//               declines a shape.
// The environment variable TFG_CPU_CONV=reference selects the reference at
// startup (to compare the two, or to rule oneDNN out of a problem); tests
// switch with SetCpuConvBackend.
#pragma once

namespace tfg::nn {

enum class ConvBackend { kReference, kOneDnn };

// The backend in use now: kOneDnn only when it is built in and selected.
ConvBackend CpuConvBackend();
// Selects `backend` for the following runs (kOneDnn falls back to
// kReference when not built in). Process-wide; not meant for use while
// kernels run.
void SetCpuConvBackend(ConvBackend backend);
// Whether this build has the oneDNN backend at all.
bool OneDnnBuilt();

// Whether the oneDNN backend may run a 3x3, stride-1 convolution (all three
// passes) as Winograd F(4x4, 3x3): about 2.25x fewer multiplications, paid
// for with transforms and a blocked layout, and results that differ from
// the direct convolution's in the last bits (~2e-6 of the largest value).
// kAuto uses it where it measured faster (conv2d_onednn.cc); the
// environment variable TFG_CONV_WINOGRAD=0 selects kOff at startup.
enum class WinogradPolicy { kAuto, kOff };
WinogradPolicy CpuConvWinograd();
void SetCpuConvWinograd(WinogradPolicy policy);

}  // namespace tfg::nn
