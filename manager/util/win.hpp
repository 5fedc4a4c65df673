// Windows-only helpers shared by the *_win.cpp files. Knows nothing about cuDNN.
#pragma once

#include <windows.h>

#include <string>
#include <string_view>

namespace cudnnenv::util {

std::wstring widen(std::string_view utf8);
std::string narrow(std::wstring_view wide);

// FormatMessage text for `code` (default: GetLastError()), one line.
std::string last_error_message(DWORD code = ::GetLastError());

}  // namespace cudnnenv::util
