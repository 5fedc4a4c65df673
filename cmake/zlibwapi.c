/* zlibwapi.dll, carried by the Windows package for cuDNN 8.3 to 8.9, which
 * open a zlib of that name at run time and do not ship one (cudnn-facts.md,
 * section 3). The DLL is Debian's zlib for mingw-w64 (libz-mingw-w64-dev's
 * libz.a) linked whole, every zlib function exported (manager/CMakeLists.txt);
 * on x64 the WINAPI build NVIDIA's guide pointed to has the same names and
 * calling convention. This file only gives the linker a translation unit and
 * the DLL a way to say what it is. */
const char cudnnenv_zlibwapi_origin[] = "zlib from Debian's libz-mingw-w64-dev, linked by cudnnenv";
