// libFuzzer target: results_from_json() (the `report` and `compare` inputs) must never crash,
// hang or leak: a bad file is a located invalid_config error; a file it accepts can be compared
// with itself (what `compare X X` does) without regressions, and written back it reads again
// (the reader accepts only what holds the writer's invariants).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "qb/reports/compare_report.hpp"
#include "qb/reports/json_results.hpp"
#include "qb/reports/results_reader.hpp"

using qb::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto results = qb::report::results_from_json(text, "results.json");
  if (!results.ok()) {
    const auto& error = results.error();
    check(error.code == qb::Errc::invalid_config && !error.message.empty());
    check(error.message.find("results.json") != std::string::npos ||
          error.loc.file == "results.json");
    return 0;
  }
  auto same = qb::judge::compare_results(*results, *results, {});
  if (same.ok()) check(!same->regressed());
  check(qb::report::results_from_json(qb::report::results_to_json(*results), "again.json").ok());
  return 0;
}
