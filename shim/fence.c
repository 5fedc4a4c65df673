/* cudnnenv-fence.dll: Windows' fence (pin/launch.hpp, prepare_fence). Copied
 * under each cuDNN name a pinned tree lacks into a folder on PATH right after
 * the tree's, it is what a bare-name load of that name finds before any
 * other copy further on PATH; its DllMain refuses to attach, so the load
 * fails with ERROR_DLL_INIT_FAILED, as if nothing had the name, and never
 * takes another cuDNN's file. It exports one symbol so that a report can
 * tell it apart. */
#include <windows.h>

__declspec(dllexport) int cudnnenv_fence(void) {
  return 1;
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved) {
  (void)instance;
  (void)reserved;
  return reason == DLL_PROCESS_ATTACH ? FALSE : TRUE;
}
