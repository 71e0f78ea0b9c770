#include "driver_notes.hpp"

#include <cstdio>
#include <mutex>
#include <set>

namespace qb::drv::verbs {

void print_note_once(const std::string& text) {
  static std::mutex mutex;
  static std::set<std::string> printed;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!printed.insert(text).second) return;
  std::fprintf(stderr, "qosbench: verbs: %s\n", text.c_str());
}

}  // namespace qb::drv::verbs
