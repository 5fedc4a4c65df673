// cudnnenv selftest [--json] [--keep] [--only CASE]: this machine proves the
// pin (doctor/selftest.hpp).
#include <algorithm>
#include <cstdlib>

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "doctor/selftest.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"
#include "version_info.hpp"

namespace cudnnenv::cli {

namespace {

struct SelftestArguments {
  bool json = false;
  bool keep = false;
  bool system32 = false;
  std::string only;
};

Json report_json(const SelftestReport& report) {
  Json cases = Json::array();
  for (const auto& each : report.cases) {
    cases.push_back(Json{{"id", each.id},
                         {"how", each.how},
                         {"expected", each.expected},
                         {"loaded", each.loaded},
                         {"file", or_null(each.file)},
                         {"status", to_string(each.status)},
                         {"detail", or_null(each.detail)},
                         {"unprovable", or_null(each.unprovable)}});
  }
  Json shells = Json::object();
  for (const auto& [name, version] : report.shells) shells[name] = version;
  return Json{{"cudnnenv", CUDNNENV_VERSION_STRING},
              {"os", report.os},
              {"wine", report.wine},
              {"code_pages", or_null(report.code_pages)},
              {"shells", std::move(shells)},
              {"store", report.kept ? Json(util::to_utf8(report.store)) : Json(nullptr)},
              {"passed", report.passed()},
              {"cases", std::move(cases)}};
}

Result<int> run_selftest_command(const SelftestArguments& arguments, const Context& context) {
  SelftestOptions options;
  options.program = util::current_executable();
  options.assets = util::installed_program().parent_path() / "selftest";
  options.environment = context.environment;
  options.only = arguments.only;
  options.keep = arguments.keep;
  options.system32 = arguments.system32;
  options.unpinned = context.environment.get("CUDNNENV_SELFTEST_UNPINNED").value_or("") == "1";
  CUDNNENV_TRY_ASSIGN(report, run_selftest(options));
  if (arguments.json) {
    print_json(report_json(*report));
  } else {
    print("cudnnenv selftest: " + report->os + (report->code_pages.empty() ? "" : ", " + report->code_pages) + "\n");
    std::string shells;
    for (const auto& [name, version] : report->shells) {
      shells += (shells.empty() ? "" : "; ") + name + ": " + (version.empty() ? "no version said" : version);
    }
    print("shells: " + (shells.empty() ? std::string("none found") : shells) + "\n");
    for (const auto& each : report->cases) {
      const Paint paint = each.status == SelftestStatus::held     ? Paint::ok
                          : each.status == SelftestStatus::failed ? Paint::fail
                                                                  : Paint::warn;
      const std::string status = to_string(each.status);
      print_marked(paint, status + std::string(11 - status.size(), ' '),
                   each.id + ": " + each.how + "\n           expected " + each.expected + ", loaded " + each.loaded +
                       (each.file.empty() ? "" : "\n           from " + each.file) +
                       (each.detail.empty() ? "" : "\n           " + each.detail) + "\n");
    }
    if (report->kept) print("the temporary store is kept: " + util::to_utf8(report->store) + "\n");
    const auto unprovable = std::count_if(report->cases.begin(), report->cases.end(), [](const SelftestCase& each) {
      return each.status == SelftestStatus::unprovable;
    });
    print(!report->passed() ? "a case failed: please attach 'cudnnenv selftest --json' to a bug report\n"
          : unprovable == 0 ? "every case held\n"
                            : "every case held that can be shown here (" + std::to_string(unprovable) +
                                  " cannot be: each says why)\n");
  }
  return report->passed() ? 0 : static_cast<int>(ExitCode::verify_failed);
}

}  // namespace

void register_selftest(CLI::App& app, Context& context) {
  auto arguments = std::make_shared<SelftestArguments>();
  CLI::App* command = app.add_subcommand(
      "selftest", "prove the pin on this machine: two test trees, stray copies, every way a program is started");
  command->add_flag("--json", arguments->json, "the result as JSON (attach it to a bug report)");
  command->add_flag("--keep", arguments->keep, "keep the temporary store to look at");
  command->add_flag("--system32", arguments->system32,
                    "Windows, from an elevated prompt: a stray copy in System32 too (removed after; never replaces "
                    "a file)");
  command->add_option("--only", arguments->only, "run one case")->check(CLI::IsMember(selftest_case_ids()));
  command->footer(
      "Needs no GPU and no cuDNN: the test libraries (sentinel versions 9.90.1 and 9.90.2, 8.1.90 and 8.1.91,\n"
      "no real release) and the program that loads them are installed with cudnnenv. Nothing is left behind.\n"
      "Windows: each load style frameworks use (by name, LOAD_WITH_ALTERED_SEARCH_PATH,\n"
      "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, AddDllDirectory, by full path, a grandchild, a .bat), stray copies\n"
      "on PATH, in the working folder and the program's folder, cmd and PowerShell activation. Under Wine a\n"
      "case Wine cannot show is 'unprovable', with the reason.\n"
      "Exit code: 0 when every case held, 4 when one failed.\n"
      "Examples:\n"
      "  cudnnenv selftest\n"
      "  cudnnenv selftest --json > selftest.json\n"
      "  cudnnenv selftest --only exec-audit --keep");
  command->callback([arguments, &context] {
    context.action = [arguments, &context] { return run_selftest_command(*arguments, context); };
  });
}

}  // namespace cudnnenv::cli
