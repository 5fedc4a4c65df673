// Windows-only helpers shared by the *_win.cpp files. Knows nothing about cuDNN.
#pragma once

#include <windows.h>

#include <string>
#include <string_view>

namespace cudnnenv::util {

std::wstring widen(std::string_view utf8);
std::string narrow(std::wstring_view wide);

// The path of an open file as the file system resolves it (links, subst
// and mapped drives followed: GetFinalPathNameByHandleW), without the
// \\?\ prefix; empty when it cannot be read.
std::wstring final_path_of(HANDLE file);

// FormatMessage text for `code` (default: GetLastError()), one line.
std::string last_error_message(DWORD code = ::GetLastError());

}  // namespace cudnnenv::util
