#include "doctor/frameworks.hpp"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <map>

#include "pin/launch.hpp"
#include "select/activation.hpp"
#include "store/spec.hpp"
#include "util/process.hpp"
#include "util/text.hpp"

namespace cudnnenv {

namespace fs = std::filesystem;

namespace {

// Run by the Python that runs, through util::run_python (`python -c PRELUDE
// SCRIPT MODULE` in a private folder): nothing in the working folder, a
// project's own torch.py or a json.py planted in /tmp, is imported.
// Exceptions become the "error" key; only a crash or a hang leaves no line.
constexpr std::string_view k_probe_script = R"PY(import json

def cudnn_words(value):
    value = int(value)
    if value >= 10000:
        return '%d.%d.%d' % (value // 10000, value % 10000 // 100, value % 100)
    return '%d.%d.%d' % (value // 1000, value % 1000 // 100, value % 100)

def cuda_words(value):
    value = int(value)
    return '%d.%d' % (value // 1000, value % 1000 // 10)

def torch_probe(out):
    import torch
    out['version'] = str(torch.__version__)
    out['cuda'] = torch.version.cuda
    cudnn = getattr(torch._C, '_cudnn', None)
    if cudnn is None:
        out['cudnn_build'] = None
        return
    out['source'] = 'torch._C._cudnn.getCompileVersion()'
    out['cudnn_build'] = '%d.%d.%d' % tuple(cudnn.getCompileVersion())
    out['rule'] = 'same-minor' if cudnn.getCompileVersion()[0] < 7 else 'minor-at-least'
    out['cudnn_loaded'] = '%d.%d.%d' % tuple(cudnn.getRuntimeVersion())
    try:
        torch.backends.cudnn.version()
    except Exception as error:
        out['load_error'] = str(error)

def tensorflow_probe(out):
    import tensorflow
    out['version'] = str(tensorflow.__version__)
    info = tensorflow.sysconfig.get_build_info()
    out['source'] = 'tf.sysconfig.get_build_info()'
    out['cuda'] = info.get('cuda_version')
    out['cudnn_build'] = info.get('cudnn_version') if info.get('is_cuda_build', True) else None

def jax_probe(out):
    import jax
    out['version'] = str(jax.__version__)
    from jax._src.lib import cuda_versions
    if cuda_versions is None:
        out['cudnn_build'] = None
        return
    out['source'] = 'jax._src.lib.cuda_versions.cudnn_build_version()'
    out['cudnn_build'] = cudnn_words(cuda_versions.cudnn_build_version())
    out['cuda'] = cuda_words(cuda_versions.cuda_runtime_build_version())
    try:
        out['cudnn_loaded'] = cudnn_words(cuda_versions.cudnn_get_version())
    except Exception as error:
        out['load_error'] = str(error)

def onnxruntime_probe(out):
    import onnxruntime
    out['version'] = str(onnxruntime.__version__)
    from onnxruntime.capi import build_and_package_info as info
    out['source'] = 'onnxruntime.capi.build_and_package_info'
    out['cuda'] = getattr(info, 'cuda_version', None)
    out['cudnn_build'] = getattr(info, 'cudnn_version', None)
    out['checked_at_load'] = False

def cupy_probe(out):
    import cupy
    out['version'] = str(cupy.__version__)
    try:
        from cupy_backends.cuda.libs import cudnn
    except ImportError:
        out['cudnn_build'] = None  # CuPy 14 dropped cuDNN
        return
    out['source'] = 'cupy_backends.cuda.libs.cudnn.get_build_version()'
    out['cudnn_build'] = cudnn_words(cudnn.get_build_version())
    out['checked_at_load'] = False
    try:
        out['cudnn_loaded'] = cudnn_words(cudnn.getVersion())
    except Exception as error:
        out['load_error'] = str(error)

out = {}
try:
    globals()[sys.argv[1] + '_probe'](out)
except BaseException as error:
    out['error'] = '%s: %s' % (type(error).__name__, error)
sys.stdout.write('\ncudnnenv-probe: ' + json.dumps(out) + '\n')
sys.stdout.flush()
)PY";

constexpr std::string_view k_marker = "cudnnenv-probe: ";

struct PartialVersion {
  int major = 0;
  std::optional<int> minor;
  std::optional<int> patch;
};

// "9", "9.8", "9.19.0", "9.1.0.70"; nothing for text that is not one.
std::optional<PartialVersion> parse_partial(std::string_view text) {
  text = util::trim(text);
  const auto fields = util::split(text, '.');
  if (fields.empty() || fields.size() > 4) return std::nullopt;
  std::vector<int> numbers;
  for (const auto& field : fields) {
    if (field.empty() || field.size() > 6 ||
        !std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    numbers.push_back(std::stoi(field));
  }
  if (numbers[0] <= 0) return std::nullopt;
  PartialVersion version{numbers[0], {}, {}};
  if (numbers.size() > 1) version.minor = numbers[1];
  if (numbers.size() > 2) version.patch = numbers[2];
  return version;
}

void set_built(CudnnNeed& need, const PartialVersion& version) {
  need.major = version.major;
  need.minor = version.minor;
  need.patch = version.patch;
}

void set_cuda(CudnnNeed& need, const std::string& cuda) {
  need.cuda = cuda;
  need.cuda_major.reset();
  if (auto parsed = parse_cuda_version(cuda)) {
    need.cuda_major = parsed->major;
  } else if (auto partial = parse_partial(cuda)) {
    need.cuda_major = partial->major;
  }
}

std::string module_of(const std::string& framework) {
  if (framework == "PyTorch") return "torch";
  if (framework == "TensorFlow") return "tensorflow";
  if (framework == "JAX") return "jax";
  if (framework == "ONNX Runtime") return "onnxruntime";
  if (framework == "CuPy") return "cupy";
  return {};
}

std::string signal_words(int number) {
  switch (number) {
#ifdef SIGSEGV
    case SIGSEGV:
      return "signal 11 (SIGSEGV)";
#endif
#ifdef SIGABRT
    case SIGABRT:
      return "signal " + std::to_string(SIGABRT) + " (SIGABRT)";
#endif
#ifdef SIGKILL
    case SIGKILL:
      return "signal " + std::to_string(SIGKILL) + " (SIGKILL)";
#endif
    default:
      return "signal " + std::to_string(number);
  }
}

// The child's last words on stderr: its last non-empty line, printable.
std::string last_line(const std::string& text) {
  std::string last;
  for (const auto& line : util::split(text, '\n')) {
    if (!util::trim(line).empty()) last = std::string(util::trim(line));
  }
  return util::printable(last.substr(0, 300));
}

std::string spec_of(const OfficialArchive& archive) {
  const TreeRecord record = as_record(archive);
  std::string spec = Version{record.version.major, record.version.minor, record.version.patch, std::nullopt}.str();
  if (auto cuda = parse_cuda_version(std::string(archive.cuda_variant).substr(4))) spec += "+cuda" + cuda->str();
  return spec;
}

}  // namespace

std::string CudnnNeed::built_with() const {
  if (!known()) return "?";
  std::string text = std::to_string(major);
  if (minor) text += "." + std::to_string(*minor);
  if (minor && patch) text += "." + std::to_string(*patch);
  return text;
}

std::string CudnnNeed::wants() const {
  if (!known()) return "a cuDNN it does not say";
  std::string text;
  const std::string family = std::to_string(major) + ".x";
  if (!minor) {
    text = "cuDNN " + family;
  } else if (rule == CudnnRule::same_minor) {
    text = "cuDNN " + std::to_string(major) + "." + std::to_string(*minor) + " exactly (any patch)";
  } else {
    text = "cuDNN " + std::to_string(major) + "." + std::to_string(*minor) + " or a newer " + family;
  }
  if (cuda_major) text += " for CUDA " + std::to_string(*cuda_major);
  return text;
}

std::string CudnnNeed::label() const {
  return framework + " " + (version.empty() ? "?" : version);
}

bool runs(const CudnnNeed& need, const Version& cudnn, const std::optional<CudaVersion>& cuda, std::string* why) {
  auto refuse = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return false;
  };
  if (!need.known() || !need.binds_selection) return true;
  if (cudnn.major != need.major) {
    return refuse("needs " + need.wants() + "; " + cudnn.str() + " is another major");
  }
  if (need.minor) {
    if (need.rule == CudnnRule::same_minor && cudnn.minor != *need.minor) {
      return refuse("needs " + need.wants() + "; " + cudnn.str() + " is another minor");
    }
    if (cudnn.minor < *need.minor) {
      return refuse("needs " + need.wants() + "; " + cudnn.str() + " is older");
    }
  }
  if (need.cuda_major && cuda && cuda->major != *need.cuda_major) {
    return refuse("needs " + need.wants() + "; this cuDNN is built for CUDA " + std::to_string(cuda->major));
  }
  return true;
}

std::optional<Profile> tensorflow_profile(const std::vector<Profile>& profiles, Os os, const std::string& version) {
  const auto fields = util::split(version, '.');
  if (fields.size() < 2) return std::nullopt;
  const std::string name = "tf" + fields[0] + "." + fields[1];
  for (const auto& profile : profiles) {
    if (profile.name == name &&
        (profile.platforms.empty() ||
         std::find(profile.platforms.begin(), profile.platforms.end(), os) != profile.platforms.end())) {
      return profile;
    }
  }
  return std::nullopt;
}

std::vector<CudnnNeed> needs_from_files(const std::vector<FrameworkInfo>& frameworks,
                                        const std::vector<Profile>& profiles, Os os) {
  std::vector<CudnnNeed> needs;
  for (const auto& framework : frameworks) {
    const std::string module = module_of(framework.name);
    if (module.empty()) continue;  // NVIDIA's cuDNN wheel on its own: a copy, not a framework
    CudnnNeed need;
    need.framework = framework.name;
    need.module = module;
    need.version = framework.version;
    need.location = framework.location;
    set_cuda(need, framework.cuda);
    if (!framework.requires_cudnn.empty()) need.metadata = framework.requires_cudnn;
    const std::string folder = util::to_utf8(framework.location.filename());
    if (framework.name == "TensorFlow") {
      // build_info says the major ("9"); the minor it was built with is its
      // tested pair's (tensorflow/docs), which its profile holds.
      need.source = "files: " + folder + "/python/platform/build_info.py";
      if (auto built = parse_partial(framework.cudnn)) set_built(need, *built);
      if (auto profile = tensorflow_profile(profiles, os, framework.version)) {
        if (auto tested = parse_partial(profile->cudnn); tested && (!need.known() || tested->major == need.major)) {
          set_built(need, *tested);
          need.source += " and profile " + profile->name;
          if (need.cuda.empty()) set_cuda(need, profile->cuda);
        }
      }
    } else if (framework.name == "PyTorch") {
      // Its own copy's version: the wheel it pins is the one it was built with.
      need.source = "files: " + folder + "/version.py and its own cuDNN";
      if (auto built = parse_partial(framework.cudnn)) set_built(need, *built);
      if (need.known() && need.major < 7) need.rule = CudnnRule::same_minor;
      need.binds_selection = os != Os::windows;
    } else if (framework.name == "JAX") {
      need.source = "files: " + framework.package + "'s METADATA";
      if (auto built = parse_partial(framework.cudnn)) set_built(need, *built);
    } else if (framework.name == "ONNX Runtime") {
      need.source = "files: " + folder + "/capi/build_and_package_info.py";
      if (auto built = parse_partial(framework.cudnn)) set_built(need, *built);
      need.checked_at_load = false;
    } else if (framework.name == "CuPy") {
      need.source = "files: " + framework.package + "'s METADATA";
      if (auto floor = requirement_floor(framework.requires_cudnn)) {
        set_built(need, PartialVersion{floor->major, floor->minor, {}});
      }
      need.checked_at_load = false;
    }
    needs.push_back(std::move(need));
  }
  return needs;
}

Result<void> apply_probe_output(std::string_view out, CudnnNeed& need) {
  const auto at = out.rfind(k_marker);
  if (at == std::string_view::npos || (at > 0 && out[at - 1] != '\n')) {
    return make_error("the probe printed no answer", "");
  }
  std::string_view line = out.substr(at + k_marker.size());
  line = line.substr(0, line.find('\n'));
  if (line.size() > 64 * 1024 || !json_nesting_within(line, 4)) {
    return make_error("the probe's answer is not what it writes", "");
  }
  const Json answer = parse_json(line);
  if (answer.is_discarded() || !answer.is_object()) {
    return make_error("the probe's answer is not JSON", "");
  }
  auto text = [&](const char* key) -> std::optional<std::string> {
    const auto found = answer.find(key);
    if (found == answer.end() || !found->is_string()) return std::nullopt;
    return util::printable(found->get<std::string>().substr(0, 500));
  };
  if (auto error = text("error")) {
    return make_error(*error, "");
  }
  if (auto version = text("version")) need.version = *version;
  if (auto cuda = text("cuda")) set_cuda(need, *cuda);
  const auto build = answer.find("cudnn_build");
  if (build != answer.end() && build->is_null()) {
    // A build without cuDNN (a CPU build): it needs none.
    need.major = 0;
    need.minor.reset();
    need.patch.reset();
    need.source = "probe: built without cuDNN";
  } else if (auto built = text("cudnn_build")) {
    auto parsed = parse_partial(*built);
    if (!parsed) return make_error("the probe's cuDNN version '" + *built + "' is not a version", "");
    const std::string said = "probe: " + text("source").value_or("the framework");
    if (!parsed->minor && need.known() && need.major == parsed->major && need.minor) {
      // TensorFlow's build info says the major alone: the minor stays its tested pair's.
      need.source = said + " (the major); " + need.source;
    } else {
      set_built(need, *parsed);
      need.source = said;
    }
  }
  if (auto rule = text("rule")) {
    need.rule = *rule == "same-minor" ? CudnnRule::same_minor : CudnnRule::minor_at_least;
  }
  const auto checked = answer.find("checked_at_load");
  if (checked != answer.end() && checked->is_boolean()) need.checked_at_load = checked->get<bool>();
  if (auto loaded = text("cudnn_loaded")) need.loaded = parse_version(*loaded);
  if (auto error = text("load_error")) need.load_error = *error;
  return {};
}

void probe_needs(std::vector<CudnnNeed>& needs, const ProbeRequest& request) {
  for (auto& need : needs) {
    if (need.module.empty()) continue;
    util::PythonSpec spec;
    spec.python = request.python;
    spec.script = std::string(k_probe_script);
    spec.arguments = {need.module};
    spec.environment = request.environment;
    spec.timeout = request.timeout;
    auto outcome = util::run_python(spec);
    if (!outcome) {
      need.probe_failure = "could not start " + util::to_utf8(request.python) + ": " + outcome.error().message;
      continue;
    }
    const auto seconds = std::to_string(std::chrono::duration_cast<std::chrono::seconds>(request.timeout).count());
    if (outcome->timed_out) {
      need.probe_failure = "timed out after " + seconds + " s, and was stopped";
      continue;
    }
    if (outcome->signal != 0) {
      need.probe_failure = "killed by " + signal_words(outcome->signal) + " while importing " + need.module;
      continue;
    }
    auto applied = apply_probe_output(outcome->out, need);
    if (!applied) {
      need.probe_failure = applied.error().message;
      if (outcome->exit_code != 0) {
        need.probe_failure = "exit code " + std::to_string(outcome->exit_code) + ": " +
                             (last_line(outcome->err).empty() ? applied.error().message : last_line(outcome->err));
      }
    }
  }
}

Solution solve(const std::vector<CudnnNeed>& needs, const std::vector<TreeRecord>& installed,
               const std::vector<const OfficialArchive*>& archives, Os, const NodeFacts* node) {
  Solution solution;
  for (const auto& need : needs) {
    if (need.known() && need.binds_selection) solution.needs.push_back(&need);
  }
  std::vector<CudnnCandidate> candidates;
  for (const auto& tree : installed) {
    if (tree.kind != TreeKind::cudnn || (node && !fails_on_node(tree, *node).empty())) continue;
    std::optional<CudaVersion> cuda = tree.cuda ? tree.cuda : tree.cuda_variant;
    candidates.push_back({tree.name, tree.version, cuda, true});
  }
  for (const OfficialArchive* archive : archives) {
    const TreeRecord record = as_record(*archive);
    if (node && !fails_on_node(record, *node, false).empty()) continue;
    candidates.push_back({spec_of(*archive), record.version, record.cuda_variant, false});
  }
  // Installed first, then the newest; the list's order keeps the rest stable.
  std::stable_sort(candidates.begin(), candidates.end(), [](const CudnnCandidate& a, const CudnnCandidate& b) {
    if (a.installed != b.installed) return a.installed;
    return b.version < a.version;
  });
  const auto pick_for = [&](const std::vector<const CudnnNeed*>& group) -> std::optional<CudnnCandidate> {
    for (const auto& candidate : candidates) {
      if (std::all_of(group.begin(), group.end(),
                      [&](const CudnnNeed* need) { return runs(*need, candidate.version, candidate.cuda); })) {
        return candidate;
      }
    }
    return std::nullopt;
  };
  const auto command_for = [](const CudnnCandidate& candidate, bool exec) {
    const std::string select =
        exec ? "cudnnenv exec --cudnn " + candidate.name + " -- python" : "cudnnenv use " + candidate.name;
    return candidate.installed ? select : "cudnnenv install " + candidate.name + " && " + select;
  };
  if (solution.needs.empty()) return solution;
  solution.pick = pick_for(solution.needs);
  if (solution.pick) {
    solution.command = command_for(*solution.pick, false);
    return solution;
  }
  // No single cuDNN: the first pair that parts, else the whole set finds none.
  for (std::size_t i = 0; i < solution.needs.size() && solution.conflict.empty(); ++i) {
    for (std::size_t j = i + 1; j < solution.needs.size() && solution.conflict.empty(); ++j) {
      if (!pick_for({solution.needs[i], solution.needs[j]})) {
        const CudnnNeed& a = *solution.needs[i];
        const CudnnNeed& b = *solution.needs[j];
        solution.conflict = "no single cuDNN runs both " + a.label() + " and " + b.label() + ": " + a.framework +
                            " needs " + a.wants() + ", " + b.framework + " needs " + b.wants();
      }
    }
  }
  if (solution.conflict.empty()) {
    solution.conflict = "no cuDNN installed or in the official list runs them all";
  }
  for (const CudnnNeed* need : solution.needs) {
    Solution::Part part;
    part.need = need;
    part.pick = pick_for({need});
    if (part.pick) part.command = command_for(*part.pick, true);
    solution.split.push_back(std::move(part));
  }
  return solution;
}

Json need_json(const CudnnNeed& need) {
  Json json{{"framework", need.framework},
            {"version", need.version.empty() ? Json(nullptr) : Json(need.version)},
            {"location", util::to_utf8(need.location)},
            {"cudnn_built", need.known() ? Json(need.built_with()) : Json(nullptr)},
            {"cuda_built", need.cuda.empty() ? Json(nullptr) : Json(need.cuda)},
            {"rule", need.rule == CudnnRule::same_minor ? "same-minor" : "minor-at-least"},
            {"wants", need.known() ? Json(need.wants()) : Json(nullptr)},
            {"checked_at_load", need.checked_at_load},
            {"binds_selection", need.binds_selection},
            {"source", need.source},
            {"metadata", need.metadata.empty() ? Json(nullptr) : Json(need.metadata)},
            {"cudnn_loaded", need.loaded ? Json(need.loaded->str()) : Json(nullptr)},
            {"load_error", need.load_error.empty() ? Json(nullptr) : Json(need.load_error)},
            {"probe_failure", need.probe_failure.empty() ? Json(nullptr) : Json(need.probe_failure)}};
  return json;
}

Json solution_json(const Solution& solution) {
  auto candidate_json = [](const std::optional<CudnnCandidate>& candidate) -> Json {
    if (!candidate) return nullptr;
    return Json{{"name", candidate->name},
                {"version", candidate->version.str()},
                {"cuda", candidate->cuda ? Json(candidate->cuda->str()) : Json(nullptr)},
                {"installed", candidate->installed}};
  };
  Json split = Json::array();
  for (const auto& part : solution.split) {
    split.push_back(Json{{"framework", part.need->label()},
                         {"cudnn", candidate_json(part.pick)},
                         {"command", part.command.empty() ? Json(nullptr) : Json(part.command)}});
  }
  return Json{{"cudnn", candidate_json(solution.pick)},
              {"command", solution.command.empty() ? Json(nullptr) : Json(solution.command)},
              {"conflict", solution.conflict.empty() ? Json(nullptr) : Json(solution.conflict)},
              {"split", split}};
}

std::vector<CudnnNeed> framework_needs(const Facts& facts, const util::Environment& environment, bool probe,
                                       double timeout_seconds) {
  std::vector<CudnnNeed> needs = needs_from_files(facts.frameworks, facts.profiles, facts.platform.os);
  if (!probe || facts.program.target.empty()) return needs;
  ProbeRequest request;
  request.python = facts.program.target;
  request.timeout = std::chrono::milliseconds(static_cast<long long>(timeout_seconds * 1000));
  request.environment = environment;
  if (facts.selection) {
    // Under the pin: the environment `cudnnenv exec` gives the program.
    LaunchRequest launch;
    launch.tree = facts.selection->tree;
    launch.beside = facts.selection->beside_trees();
    launch.environment = environment;
    launch.selection_environment = activation_of(*facts.selection, environment);
    launch.audit_module = audit_module_beside(util::installed_program());
    if (auto plan = plan_environment(launch)) request.environment = plan->environment;
  }
  probe_needs(needs, request);
  return needs;
}

}  // namespace cudnnenv
