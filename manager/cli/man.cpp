// `cudnnenv __man FOLDER`: the manual pages, written from the registered
// commands themselves (their descriptions, options, positionals and
// footers), so a page never disagrees with --help: cudnnenv(1), and
// cudnnenv-COMMAND(1) for each command, its subcommands in the same page.
// Each page also carries ENVIRONMENT, FILES, EXIT STATUS and SECURITY.

#include "cli/context.hpp"
#include "cli/output.hpp"
#include "store/component.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace cudnnenv::cli {

namespace {

// `text` as roff reads it literally: backslashes and hyphens escaped, a
// line that starts with '.' or '\'' not taken for a request.
std::string roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

bool shown(const CLI::App* sub) {
  return !sub->get_group().empty();
}

std::vector<const CLI::App*> subcommands_of(const CLI::App& app) {
  std::vector<const CLI::App*> subs;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (shown(sub)) subs.push_back(sub);
  }
  return subs;
}

std::string full_name(const CLI::App& command) {
  std::string name = command.get_name();
  for (const CLI::App* parent = command.get_parent(); parent; parent = parent->get_parent()) {
    name = parent->get_name() + " " + name;
  }
  return name;
}

// The usage line --help prints, without "Usage: ".
std::string synopsis(const CLI::App& command) {
  const auto* formatter = dynamic_cast<const CLI::Formatter*>(command.get_formatter().get());
  const CLI::Formatter plain;
  std::string usage(util::trim((formatter ? *formatter : plain).make_usage(&command, full_name(command))));
  if (util::starts_with(usage, "Usage: ")) usage = usage.substr(7);
  return ".nf\n\\fB" + roff(usage) + "\\fR\n.fi\n";
}

std::string options_text(const CLI::App& command) {
  std::string out;
  const CLI::Formatter formatter;
  for (const CLI::Option* option : command.get_options()) {
    if (option->get_group().empty()) continue;  // hidden
    std::string name =
        option->get_positional() ? util::to_upper(option->get_name()) : formatter.make_option_name(option, false);
    if (!option->get_positional()) name = util::join(util::split(name, ','), ", ");
    std::string opts = option->get_positional() ? "" : std::string(util::trim(formatter.make_option_opts(option)));
    out += ".TP\n\\fB" + roff(name) + "\\fR" + (opts.empty() ? "" : " \\fI" + roff(opts) + "\\fR") + "\n" +
           roff(option->get_description()) + "\n";
  }
  return out;
}

// The footer: examples and notes, as --help aligns them.
std::string footer_text(const CLI::App& command) {
  std::string footer = command.get_footer();
  if (util::trim(footer).empty()) return "";
  return ".PP\n.nf\n" + roff(util::trim(footer)) + "\n.fi\n";
}

constexpr std::string_view k_overview = R"roff(.PP
cudnnenv keeps several cuDNN versions side by side in one store, and the CUDA runtime libraries a framework opens beside them. It selects one per shell (\fBuse\fR), per project (a .cudnnenv.toml found in the folder or a parent) or everywhere (\fBuse \-\-global\fR); starts programs with exactly that one loaded (\fBexec\fR, and shims on PATH that do the same for python, jupyter, ...); and proves which one loads (\fBwhich\fR, \fBverify\fR, \fBexec \-\-report\fR, \fBdoctor\fR). \fBcudnnenv COMMAND \-\-help\fR and \fBman cudnnenv\-COMMAND\fR describe each command.
)roff";

// Plain text: roff() escapes it where it is written.
constexpr std::string_view k_examples =
    R"text(cudnnenv install 9.1               fetch the newest 9.1 from NVIDIA, checked against its SHA-256
cudnnenv use 9.1 --local           this project: writes .cudnnenv.toml
cudnnenv exec -- python train.py   run it with exactly that cuDNN loaded
cudnnenv doctor                    every known cause of 'DLL load failed', and the fix
eval "$(cudnnenv init bash)"       in ~/.bashrc: use, shims and the project selection in bash
)text";

constexpr std::string_view k_environment = R"roff(.SH ENVIRONMENT
.TP
.B CUDNNENV_ROOT
The store root (an absolute path); \fB\-\-root\fR wins over it. Default: C:\elibs on Windows, else $XDG_DATA_HOME/cudnnenv, else ~/.local/share/cudnnenv.
.TP
.B CUDNNENV_STATE_DIR
This user's state folder (settings, trust records, shims) when the store is not theirs to write. Default: <root>/.cudnnenv when writable, else $XDG_STATE_HOME/cudnnenv, ~/.local/state/cudnnenv, or %LOCALAPPDATA%\ecudnnenv.
.TP
.B CUDNNENV_VERSION
The selection for this shell (what \fBcudnnenv use\fR sets with \fBcudnnenv init\fR loaded): a tree, version or profile; wins over .cudnnenv.toml and the global default.
.TP
.BR CUDNNENV_ACTIVATED ", " CUDNNENV_ACTIVATED_BY
Set by \fBcudnnenv activate\fR and the other doors (conda, modulefiles, kernels, launchers): the activated tree, and the door that set it, as \fBcudnnenv current\fR names it.
.TP
.B CUDNNENV_ACTIVE
The tree active in this shell or given to a pinned program (its name); \fBdeactivate\fR reads it to say what it undid.
.TP
.B CUDNNENV_CDI_TREES
Set inside a container by a cudnnenv CDI device (\fBexport cdi\fR): the trees it mounts; \fBdoctor\fR compares them with the store.
.TP
.B CUDNNENV_SHELL
Set by \fBcudnnenv init\fR: the shell whose \fBuse\fR, \fBactivate\fR and \fBdeactivate\fR change it.
.TP
.B CUDNNENV_INDEX
A file in the format of data/cudnn-archives.tsv read in place of the built-in list of official archives (a site's own copy; an example is installed in the documentation folder as cudnn-index.example.tsv).
.TP
.B CUDNNENV_CUDA_INDEX
A folder of NVIDIA's redistrib_<release>.json manifests, read in place of the built-in pinned releases (what \fBinstall cuda\fR and \fBlist \-\-available cuda\fR know).
.TP
.B CUDNNENV_MIRROR
The base URL or folder to fetch archives from, as \fB\-\-mirror\fR.
.TP
.B CUDNNENV_VERIFY
The check before a pinned start: none, load or conv (exec, shims; \fB\-\-verify\fR wins).
.TP
.B CUDNNENV_LOG
Logging to stderr: trace, debug, info, warning, error or off (\fB\-v\fR is debug, \fB\-vv\fR trace); wins over \fB\-v\fR.
.TP
.B CUDNNENV_NO_COMPINIT_NOTE
Set to 1: zsh's completion says nothing when compinit is not loaded.
.TP
.B CUDNNENV_SELFTEST_UNPINNED
Tests only: set to 1, \fBselftest\fR starts each case without the pin, so its own failure can be seen.
.TP
.BR SSL_CERT_FILE ", " CURL_CA_BUNDLE
Linux: the certificates downloads trust (\fB\-\-cacert\fR wins).
.TP
.B NO_COLOR
No colour on a terminal.
.TP
.BR PATH ", " PATHEXT ", " LD_LIBRARY_PATH ", " CUDA_VISIBLE_DEVICES ", " CONDA_PREFIX ", " HOME ", " XDG_DATA_HOME ", " XDG_STATE_HOME ", " LOCALAPPDATA
Read as the system reads them: where programs and libraries are found, which GPUs a check may use, the active conda environment, the default folders.
)roff";

// The variables of each row of the component table beside cuDNN (shim/components.inc), and what a pinned
// program gets: each row's pin variable with its tree.
std::string component_environment() {
  std::string text;
  std::string pins;
  for (const ComponentRow& row : components()) {
    pins += ", " + std::string(row.pin_variable);
    if (row.kind == TreeKind::cudnn) continue;
    text += ".TP\n.B " + std::string(row.active_variable) + "\nThe " + std::string(row.noun) +
            " tree activated with it (\\fBactivate \\-\\-" + std::string(row.json_key) +
            "\\fR), or selected beside it.\n";
  }
  return text + ".PP\nA pinned program gets CUDNN_PATH, CUDNN_INCLUDE_DIR, CUDNN_LIB_DIR, CUDNNENV_ACTIVE" + pins +
         " (each with its tree) and its trees' library folders first on LD_LIBRARY_PATH or PATH.\n";
}

constexpr std::string_view k_files = R"roff(.SH FILES
.TP
.B .cudnnenv.toml
A project's selection, found in the working folder or a parent: \fBcudnnenv = "9.1"\fR, and optionally runtime, [env]. Anything in it that points outside the store needs \fBcudnnenv trust\fR.
.TP
.B cudnnenv.lock
Beside .cudnnenv.toml: the exact archive (name, URL, SHA\-256) for each platform; written by \fBcudnnenv lock\fR, installed by \fBcudnnenv sync\fR.
.TP
.B <root>/.cudnnenv/config.toml
The store's settings: the global default (\fBuse \-\-global\fR), [download] mirror, [verify] on_launch, [profiles]. A user's own config.toml in the state folder wins for them.
.TP
.B <state>/
The state folder: shims/, trust records, launch caches, downloads/ (the archives \fBcache\fR lists), staging.
.TP
.B <root>/NAME/.cudnnenv/tree.toml
Each tree's record: version, CUDA, platform, its folders, the SHA\-256 and size of every file, the source archive.
)roff";

constexpr std::string_view k_exit_status = R"roff(.SH EXIT STATUS
.TP
.B 0
Success.
.TP
.B 1
Failure (one line says what, one \fBhint:\fR line what to do).
.TP
.B 2
A usage error: an unknown option, a bad value, a refused input.
.TP
.B 3
Nothing selected, or no such tree.
.TP
.B 4
A check failed (verify, exec's check before the start or \fB\-\-report\fR); \fBwhich\fR: its file is missing.
.TP
.B 5
verify \fB\-\-level conv\fR found no GPU: verified up to loading.
.TP
.B 127
exec: the program was not found.
.PP
\fBexec\fR and the shims otherwise return the program's own exit status.
)roff";

constexpr std::string_view k_security = R"roff(.SH SECURITY
Project files from cloned repositories, folder names, archive entries and environment variables are untrusted: none of them may run code, change what a shim loads, or crash cudnnenv. An untrusted .cudnnenv.toml may name a store tree or a profile and set plain variables; anything that changes what gets loaded or run (a path outside the store, LD_*, PATH, PYTHON*, ...) needs \fBcudnnenv trust\fR, which records that file's real path and content: a changed file, or a link to a trusted one, is not trusted. Every key and value that reaches a generated script or a command line is quoted for that shell or refused. Archives are accepted only when they match the SHA\-256 of the official list (\fB\-\-allow\-unverified\fR, per install, says otherwise); a mirror changes where the bytes come from, never which bytes are accepted; entries are bounded in size and may not leave the tree.
)roff";

std::string command_body(const CLI::App& command, bool top) {
  std::string out;
  out += ".SH SYNOPSIS\n" + synopsis(command);
  out += ".SH DESCRIPTION\n" + roff(command.get_description()) + ".\n";
  if (top) out += std::string(k_overview);
  out += footer_text(command);
  if (const auto options = options_text(command); !options.empty()) out += ".SH OPTIONS\n" + options;
  if (!top) {
    out +=
        ".PP\nAnd the options every command takes: \\fB\\-\\-root\\fR \\fIDIR\\fR, \\fB\\-v\\fR, \\fB\\-\\-verbose\\fR "
        "(see \\fBcudnnenv\\fR(1)).\n";
  }
  const auto subs = subcommands_of(command);
  if (!subs.empty() && !top) {
    out += ".SH SUBCOMMANDS\n";
    for (const CLI::App* sub : subs) {
      out += ".SS " + roff(full_name(*sub)) + "\n" + synopsis(*sub) + ".PP\n" + roff(sub->get_description()) + ".\n";
      out += footer_text(*sub);
      if (const auto options = options_text(*sub); !options.empty()) out += options;
    }
  }
  return out;
}

std::string page(const std::string& name, const std::string& description, const std::string& body,
                 const std::string& see_also) {
  return ".\\\" Written by 'cudnnenv __man' from the program's own help.\n.TH " + util::to_upper(name) +
         " 1 \"\" \"cudnnenv " CUDNNENV_VERSION_STRING "\" \"User Commands\"\n.SH NAME\n" + roff(name) + " \\- " +
         roff(description) + "\n" + body + std::string(k_environment) + component_environment() + std::string(k_files) +
         std::string(k_exit_status) + std::string(k_security) + ".SH SEE ALSO\n" + see_also + "\n";
}

Result<void> write_page(const std::filesystem::path& folder, const std::string& name, const std::string& text) {
  return write_output_file(folder / (name + ".1"), text);
}

}  // namespace

int write_man_pages(const CLI::App& app, const std::vector<std::string>& arguments) {
  if (arguments.size() != 1) {
    print_error(make_error("__man takes one folder", "cudnnenv __man build/man", ExitCode::usage));
    return static_cast<int>(ExitCode::usage);
  }
  const auto folder = util::path_from_utf8(arguments[0]);
  std::string commands;
  std::string see_also;
  for (const CLI::App* sub : subcommands_of(app)) {
    commands += ".TP\n\\fB" + roff(sub->get_name()) + "\\fR\n" + roff(sub->get_description()) + " (\\fBcudnnenv\\-" +
                roff(sub->get_name()) + "\\fR(1))\n";
    see_also += (see_also.empty() ? "" : ",\n") + std::string("\\fBcudnnenv\\-") + roff(sub->get_name()) + "\\fR(1)";
  }
  const std::string top =
      command_body(app, true) + ".SH COMMANDS\n" + commands + ".SH EXAMPLES\n.nf\n" + roff(k_examples) + ".fi\n";
  if (auto written = write_page(
          folder, "cudnnenv",
          page("cudnnenv", "keep several cuDNN versions side by side and know which one loads", top, see_also));
      !written) {
    print_error(written.error());
    return static_cast<int>(written.error().code);
  }
  for (const CLI::App* sub : subcommands_of(app)) {
    const std::string name = "cudnnenv-" + sub->get_name();
    if (auto written = write_page(folder, name,
                                  page(name, sub->get_description(), command_body(*sub, false), "\\fBcudnnenv\\fR(1)"));
        !written) {
      print_error(written.error());
      return static_cast<int>(written.error().code);
    }
  }
  return 0;
}

}  // namespace cudnnenv::cli
