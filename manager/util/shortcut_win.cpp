#include "util/shortcut.hpp"

#include <objbase.h>
#include <objidl.h>
#include <shlobj.h>
#include <shobjidl.h>

#include "util/text.hpp"
#include "util/win.hpp"

namespace cudnnenv::util {

namespace fs = std::filesystem;

namespace {

// COM for this thread while it lives (apartment-threaded, as the shell's
// objects want it); a thread that already has COM keeps it.
class ComScope {
 public:
  ComScope() : result_(::CoInitializeEx(nullptr, COINIT_APARTMENTTHREADED | COINIT_DISABLE_OLE1DDE)) {}
  ~ComScope() {
    if (SUCCEEDED(result_)) ::CoUninitialize();
  }
  ComScope(const ComScope&) = delete;
  ComScope& operator=(const ComScope&) = delete;

 private:
  HRESULT result_;
};

// An interface pointer released when it goes.
template <class T>
class ComPointer {
 public:
  ComPointer() = default;
  ~ComPointer() {
    if (pointer_ != nullptr) pointer_->Release();
  }
  ComPointer(const ComPointer&) = delete;
  ComPointer& operator=(const ComPointer&) = delete;
  T** out() { return &pointer_; }
  T* operator->() const { return pointer_; }

 private:
  T* pointer_ = nullptr;
};

Error com_error(const std::string& what, const fs::path& file, HRESULT result) {
  return make_error(what + " '" + to_utf8(file) + "': " + last_error_message(static_cast<DWORD>(result)));
}

// The shell link object and its file interface.
struct Link {
  ComPointer<IShellLinkW> link;
  ComPointer<IPersistFile> file;
};

Result<void> open_link(Link& link, const fs::path& file) {
  HRESULT result = ::CoCreateInstance(CLSID_ShellLink, nullptr, CLSCTX_INPROC_SERVER, IID_IShellLinkW,
                                      reinterpret_cast<void**>(link.link.out()));
  if (SUCCEEDED(result)) {
    result = link.link->QueryInterface(IID_IPersistFile, reinterpret_cast<void**>(link.file.out()));
  }
  if (FAILED(result)) return com_error("the shell's link object is not available for", file, result);
  return {};
}

}  // namespace

Result<void> write_shortcut(const fs::path& file, const Shortcut& shortcut) {
  ComScope com;
  Link link;
  CUDNNENV_TRY(open_link(link, file));
  const std::wstring arguments = widen(shortcut.arguments);
  const std::wstring description = widen(shortcut.description);
  HRESULT result = link.link->SetPath(shortcut.target.c_str());
  if (SUCCEEDED(result)) result = link.link->SetArguments(arguments.c_str());
  if (SUCCEEDED(result)) result = link.link->SetWorkingDirectory(shortcut.working_directory.c_str());
  if (SUCCEEDED(result)) result = link.link->SetDescription(description.c_str());
  if (SUCCEEDED(result)) result = link.link->SetIconLocation(shortcut.target.c_str(), 0);
  if (SUCCEEDED(result)) result = link.file->Save(file.c_str(), TRUE);
  if (FAILED(result)) return com_error("cannot write the shortcut", file, result);
  return {};
}

Result<Shortcut> read_shortcut(const fs::path& file) {
  ComScope com;
  Link link;
  CUDNNENV_TRY(open_link(link, file));
  HRESULT result = link.file->Load(file.c_str(), STGM_READ);
  if (FAILED(result)) return com_error("cannot read the shortcut", file, result);
  // INFOTIPSIZE (1024) bounds a description, MAX_PATH the paths the
  // interface returns; arguments may be longer (up to a command line's 32k).
  std::wstring target(MAX_PATH, L'\0');
  std::wstring arguments(32768, L'\0');
  std::wstring folder(MAX_PATH, L'\0');
  std::wstring description(INFOTIPSIZE, L'\0');
  if (FAILED(link.link->GetPath(target.data(), static_cast<int>(target.size()), nullptr, SLGP_RAWPATH)) ||
      FAILED(link.link->GetArguments(arguments.data(), static_cast<int>(arguments.size()))) ||
      FAILED(link.link->GetWorkingDirectory(folder.data(), static_cast<int>(folder.size()))) ||
      FAILED(link.link->GetDescription(description.data(), static_cast<int>(description.size())))) {
    return make_error("cannot read the shortcut '" + to_utf8(file) + "'");
  }
  const auto until_nul = [](const std::wstring& text) { return std::wstring(text.c_str()); };
  return Shortcut{until_nul(target), narrow(until_nul(arguments)), until_nul(folder), narrow(until_nul(description))};
}

Result<fs::path> start_menu_programs() {
  PWSTR folder = nullptr;
  const HRESULT result = ::SHGetKnownFolderPath(FOLDERID_Programs, KF_FLAG_CREATE, nullptr, &folder);
  if (FAILED(result)) {
    ::CoTaskMemFree(folder);
    return make_error("this user has no Start menu programs folder: " + last_error_message(static_cast<DWORD>(result)));
  }
  fs::path path(folder);
  ::CoTaskMemFree(folder);
  return path;
}

Result<fs::path> system_folder() {
  wchar_t folder[MAX_PATH];
  const UINT length = ::GetSystemDirectoryW(folder, MAX_PATH);
  if (length == 0 || length >= MAX_PATH) return make_error("cannot find the System32 folder: " + last_error_message());
  return fs::path(std::wstring(folder, length));
}

}  // namespace cudnnenv::util
