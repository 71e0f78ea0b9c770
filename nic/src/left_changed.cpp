#include "qb/nic/left_changed.hpp"

#include <mutex>
#include <utility>

namespace qb::nic {
namespace {

std::mutex g_mutex;  // repetitions close their drivers on several threads
std::vector<std::string> g_left;

}  // namespace

void note_port_left_changed(std::string what) {
  const std::lock_guard lock(g_mutex);
  for (const std::string& known : g_left) {
    if (known == what) return;  // every repetition of a run fails on the same port
  }
  g_left.push_back(std::move(what));
}

std::vector<std::string> take_ports_left_changed() {
  const std::lock_guard lock(g_mutex);
  return std::exchange(g_left, {});
}

}  // namespace qb::nic
