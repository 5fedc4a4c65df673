#include "shell/activation.hpp"

#include <algorithm>

#include <map>

#include "util/text.hpp"

namespace cudnnenv::shell {

namespace {

// The state: "1" then one record per change, each ";" KIND NAME "=" VALUE,
// values percent-encoded where they hold '%', ';', '=' or control bytes.
//   P  an entry prepended to a list variable that existed
//   N  an entry that made a list variable that did not exist
//   S  a variable set, with its earlier value
//   U  a variable set that was unset before
std::string encode(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (c == '%' || c == ';' || c == '=' || c < 0x20 || c == 0x7F) {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The state comes back from the environment, which anyone can set: a '%'
// not followed by two hex digits stays as it is.
std::string decode(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 && hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

struct Record {
  char kind;
  std::string name;
  std::string value;
};

std::vector<Record> parse_state(const std::string& state) {
  std::vector<Record> records;
  std::size_t at = state.find(';');
  if (state.substr(0, at) != "1") {
    return records;
  }
  while (at != std::string::npos) {
    const std::size_t next = state.find(';', at + 1);
    const std::string item = state.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    const std::size_t equals = item.find('=');
    if (item.size() >= 2 && std::string("PNSU").find(item[0]) != std::string::npos) {
      records.push_back({item[0], item.substr(1, equals == std::string::npos ? std::string::npos : equals - 1),
                         equals == std::string::npos ? std::string() : decode(item.substr(equals + 1))});
    }
    at = next;
  }
  return records;
}

// The environment as the operations leave it, for the next step to build on.
void apply(util::Environment& environment, const Operation& operation) {
  if (operation.value) {
    environment.set(operation.name, *operation.value);
  } else {
    environment.unset(operation.name);
  }
}

// One operation per variable, the last value winning, in first-touched order.
std::vector<Operation> merge(const std::vector<Operation>& operations) {
  std::vector<Operation> merged;
  std::map<std::string, std::size_t> index;
  for (const auto& operation : operations) {
    if (auto found = index.find(operation.name); found != index.end()) {
      merged[found->second] = operation;
    } else {
      index[operation.name] = merged.size();
      merged.push_back(operation);
    }
  }
  return merged;
}

}  // namespace

std::string remove_entry(const std::string& list, const std::string& entry, char separator) {
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(separator, start);
    if (end == std::string::npos) end = list.size();
    if (list.compare(start, end - start, entry) == 0 && end - start == entry.size()) {
      if (end < list.size()) {
        return list.substr(0, start) + list.substr(end + 1);  // the entry and the separator after it
      }
      return start == 0 ? std::string() : list.substr(0, start - 1);  // the last: the separator before it
    }
    start = end + 1;
  }
  return list;
}

std::vector<Operation> deactivate(const util::Environment& environment, char list_separator) {
  std::vector<Operation> operations;
  const auto state = environment.get(k_state_variable);
  if (!state) {
    return operations;
  }
  util::Environment now = environment;
  const auto records = parse_state(*state);
  // In reverse: the last change is undone first.
  for (auto record = records.rbegin(); record != records.rend(); ++record) {
    Operation operation{record->name, std::nullopt};
    switch (record->kind) {
      case 'P':
      case 'N': {
        const auto current = now.get(record->name);
        if (!current) continue;  // the user unset it meanwhile
        const std::string rest = remove_entry(*current, record->value, list_separator);
        if (!(record->kind == 'N' && rest.empty())) operation.value = rest;
        break;
      }
      case 'S':
        operation.value = record->value;
        break;
      case 'U':
        break;
    }
    apply(now, operation);
    operations.push_back(operation);
  }
  operations.push_back({k_state_variable, std::nullopt});
  return merge(operations);
}

std::vector<Operation> activate(const util::Environment& environment, const Activation& activation,
                                char list_separator) {
  std::vector<Operation> operations = deactivate(environment, list_separator);
  util::Environment now = environment;
  for (const auto& operation : operations) apply(now, operation);
  std::string state = "1";
  for (const auto& [name, entry] : activation.prepend) {
    const auto current = now.get(name);
    const std::string value = current ? entry + list_separator + *current : entry;
    state += std::string(";") + (current ? 'P' : 'N') + name + "=" + encode(entry);
    operations.push_back({name, value});
    apply(now, operations.back());
  }
  for (const auto& [name, value] : activation.set) {
    const auto current = now.get(name);
    state += current ? ";S" + name + "=" + encode(*current) : ";U" + name;
    operations.push_back({name, value});
    apply(now, operations.back());
  }
  operations.push_back({k_state_variable, state});
  return merge(operations);
}

bool is_applied(const util::Environment& environment, const Activation& activation, char list_separator) {
  if (!environment.get(k_state_variable)) return false;
  for (const auto& operation : activate(environment, activation, list_separator)) {
    if (environment.get(operation.name) != operation.value) return false;
  }
  return true;
}

std::optional<std::string> unsafe_value(Shell shell, const std::vector<Operation>& operations) {
  for (const auto& operation : operations) {
    if (!is_valid_variable_name(operation.name)) {
      return "'" + util::printable(operation.name) +
             "' is not a variable name (letters, digits and '_', not starting with a digit)";
    }
    if (!operation.value) continue;
    if (operation.value->find('\0') != std::string::npos ||
        (shell == Shell::cmd && operation.value->find_first_of("\"\r\n") != std::string::npos)) {
      return "the value of " + operation.name + " has " +
             (shell == Shell::cmd ? std::string("a double quote or a line break, which cmd cannot set safely")
                                  : std::string("a NUL byte"));
    }
  }
  return std::nullopt;
}

namespace {

using Variables = std::vector<std::pair<std::string, std::string>>;

bool is_ascii(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](unsigned char c) { return c < 0x80; });
}

// cmd counts a variable's characters in UTF-16 units (%NAME:~start,length%).
std::size_t utf16_length(std::string_view utf8) {
  std::size_t units = 0;
  for (const unsigned char c : utf8) {
    if ((c & 0xC0) != 0x80) units += c >= 0xF0 ? 2 : 1;
  }
  return units;
}

// Text cmd would read differently once expanded: a line holding '!' has its
// expansions processed again with delayed expansion on.
bool expands_plainly(std::string_view text) {
  return text.find_first_of("!^\"\r\n") == std::string_view::npos;
}

// `text` inside set "NAME=...": '%' doubled; in the branch for delayed
// expansion on, '^' and '!' escaped by a caret.
std::string cmd_literal(std::string_view text, bool delayed) {
  std::string out;
  for (const char c : text) {
    if (c == '%') {
      out += "%%";
    } else if (delayed && (c == '^' || c == '!')) {
      out += '^';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

// A reference that expands to `entry` when the script runs: a source's whole
// value (%NAME%), or one entry of a source's list (%NAME:~start,length%).
std::optional<std::string> reference_to(std::string_view entry, const Variables& sources) {
  if (entry.empty() || !expands_plainly(entry)) return std::nullopt;
  for (const auto& [name, value] : sources) {
    if (value == entry) return "%" + name + "%";
  }
  for (const auto& [name, value] : sources) {
    for (std::size_t at = value.find(entry); at != std::string::npos; at = value.find(entry, at + 1)) {
      const std::size_t end = at + entry.size();
      if ((at == 0 || value[at - 1] == ';') && (end == value.size() || value[end] == ';')) {
        return "%" + name + ":~" + std::to_string(utf16_length(std::string_view(value).substr(0, at))) + "," +
               std::to_string(utf16_length(entry)) + "%";
      }
    }
  }
  return std::nullopt;
}

// `value` for set "NAME=...", in ASCII where the sources allow: each ';'
// entry with letters outside ASCII as a reference to where it comes from
// (the old list, the store's folder), else a source's value inside it.
std::string cmd_value(std::string_view value, const Variables& sources, bool delayed) {
  std::string out;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = std::min(value.find(';', begin), value.size());
    const std::string_view entry = value.substr(begin, end - begin);
    std::optional<std::string> reference = is_ascii(entry) ? std::nullopt : reference_to(entry, sources);
    if (reference) {
      out += *reference;
    } else {
      // A source's whole value inside the entry (the store's folder in a tree's path).
      std::size_t done = 0;
      while (done < entry.size()) {
        std::size_t best_at = std::string_view::npos;
        const std::pair<std::string, std::string>* best = nullptr;
        for (const auto& source : sources) {
          if (source.second.empty() || is_ascii(source.second) || !expands_plainly(source.second)) continue;
          const std::size_t at = entry.find(source.second, done);
          if (at != std::string_view::npos &&
              (at < best_at || (at == best_at && source.second.size() > best->second.size()))) {
            best_at = at;
            best = &source;
          }
        }
        if (!best) break;
        out += cmd_literal(entry.substr(done, best_at - done), delayed) + "%" + best->first + "%";
        done = best_at + best->second.size();
      }
      out += cmd_literal(entry.substr(done), delayed);
    }
    if (end == value.size()) break;
    out += ';';
    begin = end + 1;
  }
  return out;
}

std::string render_cmd(const std::vector<Operation>& operations, Variables sources) {
  std::erase_if(sources, [](const auto& source) {
    return !is_valid_variable_name(source.first) || source.second.find_first_of("\"\r\n") != std::string::npos;
  });
  std::string script;
  bool bang = false;
  for (const auto& operation : operations) {
    bang = bang || (operation.value && operation.value->find('!') != std::string::npos);
  }
  if (bang) {
    // Defined only while delayed expansion is off: on, the lone '!' is removed.
    script += "@set \"_CUDNNENV_DX=!\"\r\n";
  }
  for (const auto& operation : operations) {
    const std::string set = "set \"" + operation.name + "=";
    if (!operation.value) {
      script += "@" + unset_variable(Shell::cmd, operation.name) + "\r\n";
    } else if (operation.value->find('!') != std::string::npos) {
      script += "@if defined _CUDNNENV_DX (" + set + cmd_value(*operation.value, sources, false) + "\") else (" + set +
                cmd_value(*operation.value, sources, true) + "\")\r\n";
    } else {
      script += "@" + set + cmd_value(*operation.value, sources, false) + "\"\r\n";
    }
    // Its old value is gone for the lines after this one.
    std::erase_if(sources, [&](const auto& source) { return util::iequals(source.first, operation.name); });
  }
  if (bang) {
    script += "@set \"_CUDNNENV_DX=\"\r\n";
  }
  return script;
}

}  // namespace

std::string render(Shell shell, const std::vector<Operation>& operations, Variables sources) {
  if (shell == Shell::cmd) {
    return render_cmd(operations, std::move(sources));
  }
  std::string script;
  for (const auto& operation : operations) {
    script += (operation.value ? set_variable(shell, operation.name, *operation.value)
                               : unset_variable(shell, operation.name)) +
              "\n";
  }
  return script;
}

}  // namespace cudnnenv::shell
