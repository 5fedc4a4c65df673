// The GPU half of the probe: a float32 forward convolution through cuDNN on
// the CUDA driver API, both loaded at run time (no CUDA headers or libraries
// at build time), compared with a double-precision CPU reference.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "probe/probe.hpp"
#include "probe/protocol.hpp"
#include "util/dynlib.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace {

namespace key = probe_protocol;
using probe_protocol::ProbeExit;

// The few declarations needed, with the ABI of cuda.h and cudnn.h.
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUdeviceptr = unsigned long long;
using cudnnStatus = int;
using cudnnHandle = void*;
using cudnnDescriptor = void*;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr*, std::size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, std::size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, std::size_t);
  CUresult (*cuGetErrorString)(CUresult, const char**);
};

struct Cudnn {
  cudnnStatus (*create)(cudnnHandle*);
  const char* (*error_string)(cudnnStatus);
  cudnnStatus (*create_tensor)(cudnnDescriptor*);
  cudnnStatus (*set_tensor)(cudnnDescriptor, int, int, int, int, int, int);
  cudnnStatus (*destroy_tensor)(cudnnDescriptor);
  cudnnStatus (*create_filter)(cudnnDescriptor*);
  cudnnStatus (*set_filter)(cudnnDescriptor, int, int, int, int, int, int);
  cudnnStatus (*destroy_filter)(cudnnDescriptor);
  cudnnStatus (*create_conv)(cudnnDescriptor*);
  cudnnStatus (*set_conv)(cudnnDescriptor, int, int, int, int, int, int, int, int);
  cudnnStatus (*set_math)(cudnnDescriptor, int);
  cudnnStatus (*destroy_conv)(cudnnDescriptor);
  cudnnStatus (*output_dim)(cudnnDescriptor, cudnnDescriptor, cudnnDescriptor, int*, int*, int*, int*);
  cudnnStatus (*workspace_size)(cudnnHandle, cudnnDescriptor, cudnnDescriptor, cudnnDescriptor, cudnnDescriptor, int,
                                std::size_t*);
  cudnnStatus (*forward)(cudnnHandle, const void*, cudnnDescriptor, const void*, cudnnDescriptor, const void*,
                         cudnnDescriptor, int, void*, std::size_t, const void*, cudnnDescriptor, void*);
};

constexpr int k_float = 0;              // CUDNN_DATA_FLOAT
constexpr int k_nchw = 0;               // CUDNN_TENSOR_NCHW
constexpr int k_cross_correlation = 1;  // CUDNN_CROSS_CORRELATION
constexpr int k_fma_math = 3;           // CUDNN_FMA_MATH: no tensor cores, no down-conversion
// CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: every cuDNN and GPU has it and it
// needs no workspace. Asking the heuristics instead (cudnnGetConvolution-
// ForwardAlgorithm_v7) cost 130-200 ms more on the H200, in loading the
// kernels of the algorithm they chose.
constexpr int k_implicit_gemm = 0;
constexpr int k_cc_major = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int k_cc_minor = 76;

// A double-precision result and the float32 GPU one may differ by rounding
// in the float accumulation: K*C*R*S terms of magnitude <= 1, so a relative
// error (against the largest |y|) within 1e-4 is rounding; anything above
// is a wrong result.
constexpr double k_relative_error_bound = 1e-4;

struct Shape {
  const char* name;
  int n, c, h, w, k, r, s, pad, stride;
  int out_h() const { return (h + 2 * pad - r) / stride + 1; }
  int out_w() const { return (w + 2 * pad - s) / stride + 1; }
};

// One convolution to check: fresh random input and its double-precision
// result, computed on the CPU while the GPU is being set up.
struct Case {
  Shape shape;
  std::vector<float> x, w;
  std::vector<double> reference;
};

void compute_reference(Case& item) {
  const Shape& shape = item.shape;
  const int oh = shape.out_h(), ow = shape.out_w();
  item.reference.assign(static_cast<std::size_t>(shape.n) * shape.k * oh * ow, 0.0);
  for (int n = 0; n < shape.n; ++n)
    for (int k = 0; k < shape.k; ++k)
      for (int p = 0; p < oh; ++p)
        for (int q = 0; q < ow; ++q) {
          double sum = 0.0;
          for (int c = 0; c < shape.c; ++c)
            for (int r = 0; r < shape.r; ++r)
              for (int s = 0; s < shape.s; ++s) {
                const int h = p * shape.stride - shape.pad + r;
                const int w = q * shape.stride - shape.pad + s;
                if (h < 0 || h >= shape.h || w < 0 || w >= shape.w) continue;
                sum += static_cast<double>(
                           item.x[((static_cast<std::size_t>(n) * shape.c + c) * shape.h + h) * shape.w + w]) *
                       item.w[((static_cast<std::size_t>(k) * shape.c + c) * shape.r + r) * shape.s + s];
              }
          item.reference[((static_cast<std::size_t>(n) * shape.k + k) * oh + p) * ow + q] = sum;
        }
}

template <typename F>
bool bind_symbol(const util::DynamicLibrary& library, F& slot, const char* name, std::string& missing) {
  slot = reinterpret_cast<F>(library.symbol(name));
  if (!slot && missing.empty()) {
    missing = name;
  }
  return slot != nullptr;
}

void say(std::string_view name, const std::string& value) {
  std::printf("%.*s=%s\n", static_cast<int>(name.size()), name.data(), value.c_str());
}

// Where the time goes, per phase, for the report (and for making it faster).
class Phases {
 public:
  void end(std::string_view name) {
    const auto now = std::chrono::steady_clock::now();
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", std::chrono::duration<double, std::milli>(now - m_start).count());
    say(name, text);
    m_start = now;
  }

 private:
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
};

std::string cu_error(const Driver& cu, CUresult code) {
  const char* text = nullptr;
  cu.cuGetErrorString(code, &text);
  return std::string(text ? text : "unknown") + " (" + std::to_string(code) + ")";
}

// The three shapes: 3x3 with padding 1, a strided one, a 1x1; fresh random input.
std::vector<Case> make_cases() {
  std::vector<Case> cases = {{{"3x3 pad 1", 2, 16, 24, 24, 32, 3, 3, 1, 1}, {}, {}, {}},
                             {{"3x3 stride 2", 2, 8, 33, 31, 16, 3, 3, 1, 2}, {}, {}, {}},
                             {{"1x1", 4, 32, 16, 16, 64, 1, 1, 0, 1}, {}, {}, {}}};
  std::mt19937 random(std::random_device{}());
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (auto& item : cases) {
    const Shape& shape = item.shape;
    item.x.resize(static_cast<std::size_t>(shape.n) * shape.c * shape.h * shape.w);
    item.w.resize(static_cast<std::size_t>(shape.k) * shape.c * shape.r * shape.s);
    for (auto& v : item.x) v = uniform(random);
    for (auto& v : item.w) v = uniform(random);
  }
  return cases;
}

// 1. The driver: bound and initialised, else why not (exit 3: no GPU to test).
std::optional<ProbeExit> start_driver(const util::DynamicLibrary& library, Driver& cu) {
  std::string missing;
  bind_symbol(library, cu.cuInit, "cuInit", missing);
  bind_symbol(library, cu.cuDriverGetVersion, "cuDriverGetVersion", missing);
  bind_symbol(library, cu.cuDeviceGetCount, "cuDeviceGetCount", missing);
  bind_symbol(library, cu.cuDeviceGet, "cuDeviceGet", missing);
  bind_symbol(library, cu.cuDeviceGetName, "cuDeviceGetName", missing);
  bind_symbol(library, cu.cuDeviceGetAttribute, "cuDeviceGetAttribute", missing);
  bind_symbol(library, cu.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", missing);
  bind_symbol(library, cu.cuCtxSetCurrent, "cuCtxSetCurrent", missing);
  bind_symbol(library, cu.cuCtxSynchronize, "cuCtxSynchronize", missing);
  bind_symbol(library, cu.cuMemAlloc, "cuMemAlloc_v2", missing);
  bind_symbol(library, cu.cuMemFree, "cuMemFree_v2", missing);
  bind_symbol(library, cu.cuMemcpyHtoD, "cuMemcpyHtoD_v2", missing);
  bind_symbol(library, cu.cuMemcpyDtoH, "cuMemcpyDtoH_v2", missing);
  bind_symbol(library, cu.cuGetErrorString, "cuGetErrorString", missing);
  if (!missing.empty()) {
    say(key::gpu_error, "the NVIDIA driver lacks " + missing + ": it is too old");
    return ProbeExit::no_gpu;
  }
  if (CUresult code = cu.cuInit(0); code != 0) {
    say(key::gpu_error, "cuInit failed: " + cu_error(cu, code) + (code == 100 ? ": no CUDA-capable GPU" : ""));
    return ProbeExit::no_gpu;
  }
  return std::nullopt;
}

// The newest CUDA the driver runs, said ("13.0"); returns how many GPUs it sees.
int say_driver_cuda(const Driver& cu) {
  int driver_cuda = 0;
  int count = 0;
  cu.cuDriverGetVersion(&driver_cuda);
  cu.cuDeviceGetCount(&count);
  say(key::driver_cuda, std::to_string(driver_cuda / 1000) + "." + std::to_string(driver_cuda % 1000 / 10));
  return count;
}

// GPU `index`: its handle, name and compute capability ("9.0").
struct DeviceFacts {
  CUdevice device = 0;
  std::string name;
  std::string compute_capability;
};

DeviceFacts device_facts(const Driver& cu, int index) {
  DeviceFacts facts;
  cu.cuDeviceGet(&facts.device, index);
  char name[256] = {};
  cu.cuDeviceGetName(name, sizeof name, facts.device);
  facts.name = name;
  int cc_major = 0;
  int cc_minor = 0;
  cu.cuDeviceGetAttribute(&cc_major, k_cc_major, facts.device);
  cu.cuDeviceGetAttribute(&cc_minor, k_cc_minor, facts.device);
  facts.compute_capability = std::to_string(cc_major) + "." + std::to_string(cc_minor);
  return facts;
}

// 2. The GPUs asked for, each one the driver sees (CUDA_VISIBLE_DEVICES is
// the driver's: index 0 is the first visible one), else why not.
std::optional<ProbeExit> choose_devices(const Driver& cu, const probe_protocol::DeviceChoice& choice,
                                        std::vector<int>& devices) {
  const int count = say_driver_cuda(cu);
  if (count == 0) {
    say(key::gpu_error, "no GPU");
    return ProbeExit::no_gpu;
  }
  devices = choice.indices;
  if (choice.all) {
    for (int index = 0; index < count; ++index) devices.push_back(index);
  }
  for (const int index : devices) {
    if (index >= count) {
      say(key::gpu_error, "no GPU " + std::to_string(index) + " (" + std::to_string(count) + " present)");
      return ProbeExit::no_gpu;
    }
  }
  return std::nullopt;
}

constexpr int k_compute_mode = 20;        // CU_DEVICE_ATTRIBUTE_COMPUTE_MODE
constexpr int k_device_unavailable = 46;  // CUDA_ERROR_DEVICE_UNAVAILABLE

// One GPU: named, with its compute capability, and made current. A GPU in
// exclusive-process mode that another process holds (or in prohibited mode)
// is busy: said as gpu_busy, exit 3, not a failure of the library.
std::optional<ProbeExit> open_device(const Driver& cu, int device_index) {
  const DeviceFacts facts = device_facts(cu, device_index);
  say(key::gpu, facts.name);
  say(key::compute_capability, facts.compute_capability);
  CUcontext context = nullptr;
  if (CUresult code = cu.cuDevicePrimaryCtxRetain(&context, facts.device); code != 0) {
    if (code == k_device_unavailable) {
      int mode = 0;
      cu.cuDeviceGetAttribute(&mode, k_compute_mode, facts.device);
      say(key::gpu_busy, "GPU " + std::to_string(device_index) + " is busy: " +
                             (mode == 2   ? std::string("its compute mode is prohibited")
                              : mode == 3 ? std::string("it is in exclusive-process mode and another process holds it")
                                          : cu_error(cu, code)));
      return ProbeExit::no_gpu;
    }
    say(key::error, "cannot create a context: " + cu_error(cu, code));
    return ProbeExit::failed;
  }
  cu.cuCtxSetCurrent(context);
  return std::nullopt;
}

// The run's exit code from each GPU's: wrong results first, then a failure;
// no usable GPU only when none was.
class Outcomes {
 public:
  void add(ProbeExit code) { m_codes.push_back(code); }
  int exit_code() const {
    for (const ProbeExit worst : {ProbeExit::wrong_results, ProbeExit::failed}) {
      for (const ProbeExit code : m_codes) {
        if (code == worst) return static_cast<int>(worst);
      }
    }
    for (const ProbeExit code : m_codes) {
      if (code == ProbeExit::ok) return static_cast<int>(ProbeExit::ok);
    }
    return static_cast<int>(ProbeExit::no_gpu);
  }

 private:
  std::vector<ProbeExit> m_codes;
};

// 3. cuDNN, loaded by absolute path: bound, its versions and file said.
std::optional<ProbeExit> bind_cudnn(const util::DynamicLibrary& library, const std::filesystem::path& path,
                                    Cudnn& dnn) {
  std::string missing;
  bind_symbol(library, dnn.create, "cudnnCreate", missing);
  bind_symbol(library, dnn.error_string, "cudnnGetErrorString", missing);
  bind_symbol(library, dnn.create_tensor, "cudnnCreateTensorDescriptor", missing);
  bind_symbol(library, dnn.set_tensor, "cudnnSetTensor4dDescriptor", missing);
  bind_symbol(library, dnn.destroy_tensor, "cudnnDestroyTensorDescriptor", missing);
  bind_symbol(library, dnn.create_filter, "cudnnCreateFilterDescriptor", missing);
  bind_symbol(library, dnn.set_filter, "cudnnSetFilter4dDescriptor", missing);
  bind_symbol(library, dnn.destroy_filter, "cudnnDestroyFilterDescriptor", missing);
  bind_symbol(library, dnn.create_conv, "cudnnCreateConvolutionDescriptor", missing);
  bind_symbol(library, dnn.set_conv, "cudnnSetConvolution2dDescriptor", missing);
  bind_symbol(library, dnn.set_math, "cudnnSetConvolutionMathType", missing);
  bind_symbol(library, dnn.destroy_conv, "cudnnDestroyConvolutionDescriptor", missing);
  bind_symbol(library, dnn.output_dim, "cudnnGetConvolution2dForwardOutputDim", missing);
  bind_symbol(library, dnn.workspace_size, "cudnnGetConvolutionForwardWorkspaceSize", missing);
  bind_symbol(library, dnn.forward, "cudnnConvolutionForward", missing);
  if (!missing.empty()) {
    say(key::error, util::to_utf8(path.filename()) + " does not export " + missing);
    return ProbeExit::failed;
  }
  using VersionFunction = std::size_t (*)();
  if (auto get_version = reinterpret_cast<VersionFunction>(library.symbol("cudnnGetVersion"))) {
    say(key::cudnn_version, std::to_string(get_version()));
  }
  if (auto get_cudart = reinterpret_cast<VersionFunction>(library.symbol("cudnnGetCudartVersion"))) {
    say(key::cudart_version, std::to_string(get_cudart()));
  }
  say(key::loaded_from, util::to_utf8(library.loaded_path()));
  return std::nullopt;
}

// 4. One case on the GPU: the result into `y` and the time it took, or the
// first step that failed.
std::string run_case(const Driver& cu, const Cudnn& dnn, cudnnHandle handle, const Case& item, std::vector<float>& y,
                     double& gpu_ms) {
  const Shape& shape = item.shape;
  const auto shape_start = std::chrono::steady_clock::now();
  cudnnDescriptor x_desc = nullptr, y_desc = nullptr, w_desc = nullptr, conv = nullptr;
  dnn.create_tensor(&x_desc);
  dnn.create_tensor(&y_desc);
  dnn.create_filter(&w_desc);
  dnn.create_conv(&conv);
  std::string step;
  auto check = [&](cudnnStatus status, const char* what) {
    if (status != 0 && step.empty()) {
      step = std::string(what) + ": " + dnn.error_string(status);
    }
  };
  int on = 0, ok_ = 0, oh = 0, ow = 0;
  check(dnn.set_tensor(x_desc, k_nchw, k_float, shape.n, shape.c, shape.h, shape.w), "cudnnSetTensor4dDescriptor");
  check(dnn.set_filter(w_desc, k_float, k_nchw, shape.k, shape.c, shape.r, shape.s), "cudnnSetFilter4dDescriptor");
  check(dnn.set_conv(conv, shape.pad, shape.pad, shape.stride, shape.stride, 1, 1, k_cross_correlation, k_float),
        "cudnnSetConvolution2dDescriptor");
  check(dnn.set_math(conv, k_fma_math), "cudnnSetConvolutionMathType");
  check(dnn.output_dim(conv, x_desc, w_desc, &on, &ok_, &oh, &ow), "cudnnGetConvolution2dForwardOutputDim");
  check(dnn.set_tensor(y_desc, k_nchw, k_float, on, ok_, oh, ow), "cudnnSetTensor4dDescriptor");
  if (step.empty() && (on != shape.n || ok_ != shape.k || oh != shape.out_h() || ow != shape.out_w())) {
    step = "cudnnGetConvolution2dForwardOutputDim gave " + std::to_string(on) + "x" + std::to_string(ok_) + "x" +
           std::to_string(oh) + "x" + std::to_string(ow) + ", not the reference's shape";
  }
  const int algo = k_implicit_gemm;
  std::size_t workspace_bytes = 0;
  check(dnn.workspace_size(handle, x_desc, w_desc, conv, y_desc, algo, &workspace_bytes),
        "cudnnGetConvolutionForwardWorkspaceSize");
  y.assign(static_cast<std::size_t>(shape.n) * shape.k * shape.out_h() * shape.out_w(), 0.0f);
  CUdeviceptr dx = 0, dw = 0, dy = 0, dws = 0;
  std::string memory_error;
  for (auto [pointer, bytes] : {std::pair{&dx, item.x.size() * 4}, std::pair{&dw, item.w.size() * 4},
                                std::pair{&dy, y.size() * 4}, std::pair{&dws, workspace_bytes + 16}}) {
    if (CUresult code = cu.cuMemAlloc(pointer, bytes); code != 0 && memory_error.empty()) {
      memory_error = "cuMemAlloc: " + cu_error(cu, code);  // plain words for known causes: verify.cpp
    }
  }
  auto copied = [&](CUresult code, const char* what) {
    if (code != 0 && step.empty()) {
      step = std::string(what) + ": " + cu_error(cu, code);
    }
  };
  if (memory_error.empty()) {
    copied(cu.cuMemcpyHtoD(dx, item.x.data(), item.x.size() * 4), "cuMemcpyHtoD");
    copied(cu.cuMemcpyHtoD(dw, item.w.data(), item.w.size() * 4), "cuMemcpyHtoD");
    const float alpha = 1.0f, beta = 0.0f;
    check(dnn.forward(handle, &alpha, x_desc, reinterpret_cast<void*>(dx), w_desc, reinterpret_cast<void*>(dw), conv,
                      algo, reinterpret_cast<void*>(dws), workspace_bytes, &beta, y_desc, reinterpret_cast<void*>(dy)),
          "cudnnConvolutionForward");
    if (CUresult code = cu.cuCtxSynchronize(); code != 0 && step.empty()) {
      step = "cuCtxSynchronize: " + cu_error(cu, code);
    }
    copied(cu.cuMemcpyDtoH(y.data(), dy, y.size() * 4), "cuMemcpyDtoH");
  }
  gpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - shape_start).count();
  for (CUdeviceptr pointer : {dx, dw, dy, dws}) {
    if (pointer) cu.cuMemFree(pointer);
  }
  dnn.destroy_tensor(x_desc);
  dnn.destroy_tensor(y_desc);
  dnn.destroy_filter(w_desc);
  dnn.destroy_conv(conv);
  return memory_error.empty() ? step : memory_error;
}

// 5. The comparison: the largest difference relative to the largest magnitude.
double relative_error(const std::vector<float>& y, const std::vector<double>& reference) {
  double largest = 0.0, worst_difference = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    largest = std::max(largest, std::fabs(reference[i]));
    worst_difference = std::max(worst_difference, std::fabs(static_cast<double>(y[i]) - reference[i]));
  }
  return largest > 0 ? worst_difference / largest : worst_difference;
}

}  // namespace

namespace {

// The CUDA driver loaded and started, its functions in `cu`; else why not is
// said (gpu_error), `stop` is the exit code, and nothing is returned.
std::optional<util::DynamicLibrary> load_driver(Driver& cu, ProbeExit& stop) {
#ifdef _WIN32
  auto library = util::DynamicLibrary::open("nvcuda.dll");
#else
  auto library = util::DynamicLibrary::open("libcuda.so.1");
#endif
  if (!library) {
    say(key::gpu_error, "no NVIDIA driver: " + library.error().message);
    stop = ProbeExit::no_gpu;
    return std::nullopt;
  }
  if (auto failed = start_driver(*library, cu)) {
    stop = *failed;
    return std::nullopt;
  }
  return std::optional<util::DynamicLibrary>(std::move(*library));
}

}  // namespace

int run_gpu_probe() {
  // The driver's version string, from NVML when it is there (it needs no GPU context).
#ifdef _WIN32
  auto nvml = util::DynamicLibrary::open("nvml.dll");
#else
  auto nvml = util::DynamicLibrary::open("libnvidia-ml.so.1");
#endif
  if (nvml) {
    int (*init)() = nullptr;
    int (*driver_version)(char*, unsigned) = nullptr;
    int (*shutdown)() = nullptr;
    std::string missing;
    bind_symbol(*nvml, init, "nvmlInit_v2", missing);
    bind_symbol(*nvml, driver_version, "nvmlSystemGetDriverVersion", missing);
    bind_symbol(*nvml, shutdown, "nvmlShutdown", missing);
    char text[96] = {};
    if (missing.empty() && init() == 0) {
      if (driver_version(text, sizeof text) == 0) {
        say(key::driver_version, text);
      }
      shutdown();
    }
  }
  Driver cu{};
  ProbeExit stop = ProbeExit::ok;
  const auto driver_library = load_driver(cu, stop);
  if (!driver_library) {
    return static_cast<int>(stop);
  }
  const int count = say_driver_cuda(cu);
  for (int index = 0; index < count; ++index) {
    const DeviceFacts facts = device_facts(cu, index);
    say(key::device, std::to_string(index) + " " + facts.compute_capability + " " + facts.name);
  }
  if (count == 0) {
    say(key::gpu_error, "no GPU");
    return static_cast<int>(ProbeExit::no_gpu);
  }
  return static_cast<int>(ProbeExit::ok);
}

int run_sgemm_probe(const std::filesystem::path& cublas_path, const probe_protocol::DeviceChoice& choice) {
  // C = A B, column-major as cuBLAS takes it, random input; the reference in double.
  constexpr int n = 256;
  std::mt19937 random(std::random_device{}());
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> a(n * n), b(n * n);
  for (auto& v : a) v = uniform(random);
  for (auto& v : b) v = uniform(random);
  std::vector<double> reference(n * n, 0.0);
  for (int column = 0; column < n; ++column)
    for (int inner = 0; inner < n; ++inner) {
      const double factor = b[static_cast<std::size_t>(column) * n + inner];
      for (int row = 0; row < n; ++row) {
        reference[static_cast<std::size_t>(column) * n + row] += a[static_cast<std::size_t>(inner) * n + row] * factor;
      }
    }

  Driver cu{};
  ProbeExit stop = ProbeExit::ok;
  const auto driver_library = load_driver(cu, stop);
  if (!driver_library) return static_cast<int>(stop);
  std::vector<int> devices;
  if (auto stopped = choose_devices(cu, choice, devices)) return static_cast<int>(*stopped);
  auto library = util::DynamicLibrary::open(cublas_path);
  if (!library) {
    say(key::error, library.error().message);
    return static_cast<int>(ProbeExit::failed);
  }
  using Handle = void*;
  int (*create)(Handle*) = nullptr;
  int (*sgemm)(Handle, int, int, int, int, int, const float*, const float*, int, const float*, int, const float*,
               float*, int) = nullptr;
  std::string missing;
  bind_symbol(*library, create, "cublasCreate_v2", missing);
  bind_symbol(*library, sgemm, "cublasSgemm_v2", missing);
  if (!missing.empty()) {
    say(key::error, util::to_utf8(cublas_path.filename()) + " does not export " + missing);
    return static_cast<int>(ProbeExit::failed);
  }
  say(key::loaded_from, util::to_utf8(library->loaded_path()));

  // One GPU: a handle of its own (cuBLAS binds it to the current context), the product, the comparison.
  const auto on_device = [&](int index) -> ProbeExit {
    if (auto stopped = open_device(cu, index)) return *stopped;
    Handle handle = nullptr;
    if (const int status = create(&handle); status != 0) {
      // CUBLAS_STATUS_NOT_INITIALIZED (1): the driver is too old for this runtime, or no usable GPU.
      say(key::error, "cublasCreate_v2 failed: status " + std::to_string(status));
      return status == 1 ? ProbeExit::no_gpu : ProbeExit::failed;
    }
    const std::size_t bytes = a.size() * sizeof(float);
    CUdeviceptr da = 0, db = 0, dc = 0;
    for (CUdeviceptr* pointer : {&da, &db, &dc}) {
      if (CUresult code = cu.cuMemAlloc(pointer, bytes); code != 0) {
        say(key::error, "cuMemAlloc failed: " + cu_error(cu, code));
        return ProbeExit::failed;
      }
    }
    cu.cuMemcpyHtoD(da, a.data(), bytes);
    cu.cuMemcpyHtoD(db, b.data(), bytes);
    const float alpha = 1.0f, beta = 0.0f;
    const auto start = std::chrono::steady_clock::now();
    const int status = sgemm(handle, 0, 0, n, n, n, &alpha, reinterpret_cast<const float*>(da), n,
                             reinterpret_cast<const float*>(db), n, &beta, reinterpret_cast<float*>(dc), n);
    const CUresult synced = cu.cuCtxSynchronize();
    const double gpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (status != 0 || synced != 0) {
      say(key::error, status != 0 ? "cublasSgemm_v2 failed: status " + std::to_string(status)
                                  : "the SGEMM did not finish: " + cu_error(cu, synced));
      say(key::sgemm_result, "fail");
      return ProbeExit::failed;
    }
    std::vector<float> c(n * n, 0.0f);
    cu.cuMemcpyDtoH(c.data(), dc, bytes);
    for (CUdeviceptr pointer : {da, db, dc}) cu.cuMemFree(pointer);
    const double relative = relative_error(c, reference);
    char line[160];
    std::snprintf(line, sizeof line, "%dx%dx%d: max relative error %.2e, %.1f ms on the GPU", n, n, n, relative,
                  gpu_ms);
    say(key::sgemm, line);
    std::snprintf(line, sizeof line, "%.2e", relative);
    say(key::max_relative_error, line);
    say(key::error_bound, "1e-4");
    const bool pass = relative <= k_relative_error_bound;
    say(key::sgemm_result, pass ? "pass" : "fail");
    return pass ? ProbeExit::ok : ProbeExit::wrong_results;
  };
  Outcomes outcomes;
  for (const int index : devices) {
    if (choice.sections) say(key::device_begin, std::to_string(index));
    outcomes.add(on_device(index));
  }
  return outcomes.exit_code();
}

int run_conv_probe(const std::filesystem::path& library, const probe_protocol::DeviceChoice& choice) {
  Phases phases;
  // The inputs and their reference results, on a second thread while the driver starts.
  std::vector<Case> cases = make_cases();
  std::thread references([&cases] {
    for (auto& item : cases) compute_reference(item);
  });
  struct Joiner {  // every return below waits for the thread
    std::thread& thread;
    ~Joiner() {
      if (thread.joinable()) thread.join();
    }
  } joiner{references};

  // Once for the run: the driver, the GPUs asked for, cuDNN.
  Driver cu{};
  ProbeExit stop = ProbeExit::ok;
  const auto driver_library = load_driver(cu, stop);
  if (!driver_library) {
    return static_cast<int>(stop);
  }
  phases.end(key::driver_init_ms);
  std::vector<int> devices;
  if (auto stop = choose_devices(cu, choice, devices)) {
    return static_cast<int>(*stop);
  }
  auto cudnn_library = util::DynamicLibrary::open(library);
  if (!cudnn_library) {
    say(key::error, cudnn_library.error().message);
    return static_cast<int>(ProbeExit::failed);
  }
  Cudnn dnn{};
  if (auto stop = bind_cudnn(*cudnn_library, library, dnn)) {
    return static_cast<int>(*stop);
  }
  phases.end(key::cudnn_load_ms);

  // Each GPU: its context, a cuDNN handle of its own, the three shapes, the comparison.
  const auto on_device = [&](int index) -> ProbeExit {
    Phases device_phases;
    if (auto stop = open_device(cu, index)) return *stop;
    device_phases.end(key::context_ms);
    cudnnHandle handle = nullptr;
    if (cudnnStatus status = dnn.create(&handle); status != 0) {
      say(key::error, std::string("cudnnCreate failed: ") + dnn.error_string(status));
      // NOT_INITIALIZED (1001): the driver is too old for this build, or no GPU.
      return status == 1001 ? ProbeExit::no_gpu : ProbeExit::failed;
    }
    device_phases.end(key::cudnn_create_ms);
    int failed = 0;
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::vector<float>> results(cases.size());
    std::vector<double> gpu_times(cases.size(), 0.0);
    for (std::size_t item = 0; item < cases.size(); ++item) {
      if (std::string step = run_case(cu, dnn, handle, cases[item], results[item], gpu_times[item]); !step.empty()) {
        say(key::conv_error, std::string(cases[item].shape.name) + ": " + step);
        ++failed;
        results[item].clear();
      }
    }
    const double elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (references.joinable()) references.join();
    double worst = 0.0;
    for (std::size_t item = 0; item < cases.size(); ++item) {
      if (results[item].empty()) {
        continue;
      }
      const Shape& shape = cases[item].shape;
      const double relative = relative_error(results[item], cases[item].reference);
      worst = std::max(worst, relative);
      char line[256];
      std::snprintf(line, sizeof line, "%s: algo %d, %dx%dx%dx%d, max relative error %.2e, %.1f ms on the GPU",
                    shape.name, k_implicit_gemm, shape.n, shape.k, shape.out_h(), shape.out_w(), relative,
                    gpu_times[item]);
      say(key::conv, line);
      if (!(relative <= k_relative_error_bound)) {
        ++failed;
      }
    }
    char summary[128];
    std::snprintf(summary, sizeof summary, "%.2e", worst);
    say(key::max_relative_error, summary);
    say(key::error_bound, "1e-4");
    std::snprintf(summary, sizeof summary, "%.1f", elapsed_ms);
    say(key::conv_ms, summary);
    // The handle and the context are left to the process's end (the probe
    // exits right after this): destroying a context costs tens of milliseconds.
    say(key::conv_result, failed == 0 ? "pass" : "fail");
    return failed == 0 ? ProbeExit::ok : ProbeExit::wrong_results;
  };
  Outcomes outcomes;
  for (const int index : devices) {
    if (choice.sections) say(key::device_begin, std::to_string(index));
    outcomes.add(on_device(index));
  }
  return outcomes.exit_code();
}

}  // namespace cudnnenv
