#include "cli/output.hpp"

void save() {
  util::write_file_atomic(file, text);  // a lock, say
}
