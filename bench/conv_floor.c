/* The floor of a GPU check of cuDNN (issue 26): the smallest program that
 * runs one cuDNN convolution from process start. It loads the driver and
 * cuDNN at run time (no CUDA headers or libraries at build time, as
 * cudnnenv-probe), starts the driver, makes the primary context current,
 * creates a cuDNN handle and descriptors, runs one float32 forward
 * convolution with implicit GEMM (no workspace), copies the result back and
 * prints one value. Nothing else: no CPU reference, no file checks, no
 * second shape. bench/gpu.sh times it against `cudnnenv verify --level conv`.
 * Usage: conv_floor LIBCUDNN (an absolute path); exit 1 with the failed step. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef int CUresult;
typedef void* CUcontext;
typedef unsigned long long CUdeviceptr;
typedef void* Handle;
typedef void* Desc;

#define BIND(library, name) dlsym(library, name)
#define CHECK(step, call)                                         \
  do {                                                            \
    int status_ = (call);                                         \
    if (status_ != 0) {                                           \
      fprintf(stderr, "%s failed: status %d\n", step, status_); \
      _exit(1);                                                   \
    }                                                             \
  } while (0)

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: conv_floor LIBCUDNN\n");
    return 2;
  }
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW);
  if (!cuda) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  CUresult (*cuInit)(unsigned) = BIND(cuda, "cuInit");
  CUresult (*cuDeviceGet)(int*, int) = BIND(cuda, "cuDeviceGet");
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, int) = BIND(cuda, "cuDevicePrimaryCtxRetain");
  CUresult (*cuCtxSetCurrent)(CUcontext) = BIND(cuda, "cuCtxSetCurrent");
  CUresult (*cuCtxSynchronize)(void) = BIND(cuda, "cuCtxSynchronize");
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = BIND(cuda, "cuMemAlloc_v2");
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = BIND(cuda, "cuMemcpyHtoD_v2");
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = BIND(cuda, "cuMemcpyDtoH_v2");
  int device = 0;
  CUcontext context = NULL;
  CHECK("cuInit", cuInit(0));
  CHECK("cuDeviceGet", cuDeviceGet(&device, 0));
  CHECK("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&context, device));
  CHECK("cuCtxSetCurrent", cuCtxSetCurrent(context));

  void* dnn = dlopen(argv[1], RTLD_NOW);
  if (!dnn) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  int (*create)(Handle*) = BIND(dnn, "cudnnCreate");
  int (*create_tensor)(Desc*) = BIND(dnn, "cudnnCreateTensorDescriptor");
  int (*set_tensor)(Desc, int, int, int, int, int, int) = BIND(dnn, "cudnnSetTensor4dDescriptor");
  int (*create_filter)(Desc*) = BIND(dnn, "cudnnCreateFilterDescriptor");
  int (*set_filter)(Desc, int, int, int, int, int, int) = BIND(dnn, "cudnnSetFilter4dDescriptor");
  int (*create_conv)(Desc*) = BIND(dnn, "cudnnCreateConvolutionDescriptor");
  int (*set_conv)(Desc, int, int, int, int, int, int, int, int) = BIND(dnn, "cudnnSetConvolution2dDescriptor");
  int (*forward)(Handle, const void*, Desc, const void*, Desc, const void*, Desc, int, void*, size_t, const void*,
                 Desc, void*) = BIND(dnn, "cudnnConvolutionForward");
  Handle handle = NULL;
  CHECK("cudnnCreate", create(&handle));

  /* 2x16x24x24 input, 32 3x3 filters, padding 1: a 2x32x24x24 output (the probe's first shape). */
  enum { N = 2, C = 16, H = 24, W = 24, K = 32, R = 3, S = 3 };
  static float x[N * C * H * W], w[K * C * R * S], y[N * K * H * W];
  for (size_t i = 0; i < sizeof x / sizeof *x; ++i) x[i] = (float)(rand() % 200 - 100) / 100.0f;
  for (size_t i = 0; i < sizeof w / sizeof *w; ++i) w[i] = (float)(rand() % 200 - 100) / 100.0f;
  Desc x_desc, y_desc, w_desc, conv;
  CHECK("cudnnCreateTensorDescriptor", create_tensor(&x_desc));
  CHECK("cudnnCreateTensorDescriptor", create_tensor(&y_desc));
  CHECK("cudnnCreateFilterDescriptor", create_filter(&w_desc));
  CHECK("cudnnCreateConvolutionDescriptor", create_conv(&conv));
  CHECK("cudnnSetTensor4dDescriptor", set_tensor(x_desc, 0, 0, N, C, H, W)); /* NCHW, float */
  CHECK("cudnnSetTensor4dDescriptor", set_tensor(y_desc, 0, 0, N, K, H, W));
  CHECK("cudnnSetFilter4dDescriptor", set_filter(w_desc, 0, 0, K, C, R, S));
  CHECK("cudnnSetConvolution2dDescriptor", set_conv(conv, 1, 1, 1, 1, 1, 1, 1, 0)); /* cross-correlation, float */
  CUdeviceptr dx, dw, dy;
  CHECK("cuMemAlloc", cuMemAlloc(&dx, sizeof x));
  CHECK("cuMemAlloc", cuMemAlloc(&dw, sizeof w));
  CHECK("cuMemAlloc", cuMemAlloc(&dy, sizeof y));
  CHECK("cuMemcpyHtoD", cuMemcpyHtoD(dx, x, sizeof x));
  CHECK("cuMemcpyHtoD", cuMemcpyHtoD(dw, w, sizeof w));
  const float alpha = 1.0f, beta = 0.0f;
  CHECK("cudnnConvolutionForward", forward(handle, &alpha, x_desc, (void*)dx, w_desc, (void*)dw, conv, 0 /* implicit GEMM */,
                                           NULL, 0, &beta, y_desc, (void*)dy));
  CHECK("cuCtxSynchronize", cuCtxSynchronize());
  CHECK("cuMemcpyDtoH", cuMemcpyDtoH(y, dy, sizeof y));
  printf("%g\n", (double)y[0]);
  fflush(stdout);
  _exit(0); /* as the probe: the driver's tear-down is not part of the check */
}
