#include "shell/activation.hpp"

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

std::string render(Shell shell, const std::vector<Operation>& operations) {
  std::string script;
  const char* end = shell == Shell::cmd ? "\r\n" : "\n";
  bool bang = false;
  for (const auto& operation : operations) {
    bang = bang || (operation.value && operation.value->find('!') != std::string::npos);
  }
  if (shell == Shell::cmd && bang) {
    // Defined only while delayed expansion is off: on, the lone '!' is removed.
    script += std::string("@set \"_CUDNNENV_DX=!\"") + end;
  }
  for (const auto& operation : operations) {
    if (shell == Shell::cmd && operation.value && operation.value->find('!') != std::string::npos) {
      script += "@if defined _CUDNNENV_DX (" + set_variable(shell, operation.name, *operation.value) + ") else (" +
                set_variable_delayed(operation.name, *operation.value) + ")" + end;
      continue;
    }
    script += (shell == Shell::cmd ? "@" : "") +
              (operation.value ? set_variable(shell, operation.name, *operation.value)
                               : unset_variable(shell, operation.name)) +
              end;
  }
  if (shell == Shell::cmd && bang) {
    script += std::string("@set \"_CUDNNENV_DX=\"") + end;
  }
  return script;
}

}  // namespace cudnnenv::shell
