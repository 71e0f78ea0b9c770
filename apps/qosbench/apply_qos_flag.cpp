#include "apply_qos_flag.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "qb/common/config_error.hpp"

namespace qb::cli {
namespace {

// --driver-option nic_qos=off and nic_qos='"off"' both mean "off".
std::string unquoted(std::string text) {
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') &&
      text.back() == text.front()) {
    return text.substr(1, text.size() - 2);
  }
  return text;
}

}  // namespace

Status add_apply_qos(const ConfigTable& table, std::vector<ConfigOverride>& overrides) {
  const auto given = std::find_if(overrides.rbegin(), overrides.rend(),
                                  [](const ConfigOverride& o) { return o.key == "nic_qos"; });
  if (given != overrides.rend()) {
    const std::string mode = unquoted(given->text);
    if (mode == "apply") return {};
    return make_error(Errc::usage,
                      fmt::format("--apply-qos and {} nic_qos={} conflict: --apply-qos is "
                                  "nic_qos = \"apply\"; give one of them",
                                  given->flag, mode),
                      "--apply-qos");
  }
  std::optional<std::string> in_file;
  try {
    in_file = table.string("nic_qos");
  } catch (const ConfigError&) {
    in_file.reset();  // not a string: the driver's own parse says so, at its place
  }
  if (in_file && *in_file != "apply") {
    return table.error_at("nic_qos",
                          fmt::format("is \"{}\" in the suite, which conflicts with --apply-qos "
                                      "(nic_qos = \"apply\"): remove one of them",
                                      *in_file));
  }
  overrides.push_back(ConfigOverride{"nic_qos", "apply", "--apply-qos", false});
  return {};
}

Error explain_apply_qos_refusal(Error error, const std::string& driver) {
  if (!error.where.starts_with("--apply-qos")) return error;
  error.message = fmt::format(
      "the {} driver has no NIC whose QoS it programs: --apply-qos (nic_qos = \"apply\") is an "
      "option of the drivers of real NICs (verbs, dpdk)",
      driver);
  error.where = "--apply-qos";
  return error;
}

}  // namespace qb::cli
