#include "select/framework.hpp"

#include "discover/discover.hpp"
#include "download/runtime.hpp"
#include "util/text.hpp"

namespace cudnnenv {

std::string UnprovidedLibraries::describe() const {
  std::string text = framework + " (" + profile + ") opens " + names.front() + " first";
  for (std::size_t i = 1; i < names.size(); ++i) text += (i == 1 ? ", then " : ", ") + names[i];
  return text + ": no CUDA runtime tree is selected and " +
         (names.size() == 1 ? std::string("it is not") : "none of them is") + " in " + looked_in;
}

std::optional<UnprovidedLibraries> unprovided_framework_libraries(const Selection& selection,
                                                                  const util::Environment& environment, Os os) {
  if (!selection.profile || selection.runtime()) return std::nullopt;
  const Profile& profile = *selection.profile;
  DiscoverContext context;
  context.environment = environment;
  context.os = os;
  UnprovidedLibraries result;
  for (const auto& name : profile.runtime_libraries(os)) {
    if (default_resolution(context, name).empty()) result.names.push_back(name);
  }
  if (result.names.empty()) return std::nullopt;
  result.framework = profile.framework;
  result.profile = profile.name;
  result.looked_in = describe_default_search(context);
  const std::vector<Version> known = known_cuda_releases(cuda_index(environment));
  const auto asked = parse_cuda_version(profile.cuda);
  const auto release = asked ? runtime_release_for(*asked, known, profile.framework)
                             : Result<RuntimeReleaseChoice>(make_error("no CUDA version", ""));
  result.fix = release ? "'cudnnenv install cuda " + release->release + "' installs CUDA " + release->release +
                             "'s runtime, which has them, selected with this tree"
                       : release.error().hint;
  return result;
}

}  // namespace cudnnenv
