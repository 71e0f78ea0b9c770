#include "qb/reports/results_reader.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "qb/judge/verdict.hpp"
#include "results_fields.hpp"
#include "results_invariants.hpp"

namespace qb::report {
namespace {

// 1-based line and column of a byte offset, for parse errors.
SourceLoc location_of(std::string_view text, size_t byte, const std::string& source_name) {
  SourceLoc loc{source_name, 1, 1};
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

}  // namespace

Result<Results> results_from_json(std::string_view text, const std::string& source_name) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // nlohmann reports the byte after the failure (1-based); point at the last byte read.
    const size_t byte = e.byte > 0 ? e.byte - 1 : 0;
    const bool at_end = byte + 1 >= text.size();
    return make_error(Errc::invalid_config,
                      at_end ? "not a complete results JSON file (truncated or empty?)"
                             : "not valid JSON: " + std::string(e.what()),
                      {}, location_of(text, byte, source_name));
  } catch (const Json::exception& e) {
    // A number beyond double (1e400) is out_of_range, not parse_error: it aborted `compare`.
    return make_error(Errc::invalid_config, "not valid JSON: " + std::string(e.what()), {},
                      SourceLoc{source_name});
  }
  if (!root.is_object()) {
    return make_error(Errc::invalid_config, "not a qosbench results file: expected a JSON object",
                      {}, SourceLoc{source_name});
  }
  // The schema first: a file of another version fails on that, not on some field it renamed.
  const auto schema = root.find("schema");
  if (schema == root.end() || !schema->is_string()) {
    return make_error(Errc::invalid_config, "not a qosbench results file (no \"schema\" string)",
                      "schema", SourceLoc{source_name});
  }
  if (schema->get<std::string>() != kResultsSchema) {
    return make_error(
        Errc::invalid_config,
        fmt::format("results schema \"{}\" is not supported: this qosbench reads \"{}\"",
                    schema->get<std::string>(), kResultsSchema),
        "schema", SourceLoc{source_name});
  }
  // A sender-only run received nothing: there is no measurement to report, judge or compare.
  if (const auto sender_only = root.find("sender_only");
      sender_only != root.end() && sender_only->is_boolean() && sender_only->get<bool>()) {
    return make_error(Errc::invalid_config,
                      "the results of a sender-only run: nothing was received, so there is "
                      "nothing to report or compare; use the results of its receiver's run",
                      "sender_only", SourceLoc{source_name});
  }
  try {
    Results results = read_results_document(JsonNode(root, ""));
    if (auto valid = check_results_invariants(results, source_name); !valid) {
      return std::move(valid).error();
    }
    // A file written before the verdict was stored: the same sentence from its gates.
    if (results.verdict.summary.empty()) results.verdict = judge::verdict_of(results);
    return results;
  } catch (const FieldError& e) {
    return make_error(Errc::invalid_config, e.message, e.path, SourceLoc{source_name});
  } catch (const Json::exception& e) {  // a backstop: JsonNode checks types before every get<>
    return make_error(Errc::invalid_config, e.what(), {}, SourceLoc{source_name});
  }
}

Result<Results> read_results_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return make_error(Errc::invalid_config, "is a directory, not a results file", {},
                      SourceLoc{path});
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(Errc::invalid_config,
                      fmt::format("cannot read results file: {}", std::strerror(errno)), {},
                      SourceLoc{path});
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    return make_error(Errc::invalid_config, "cannot read results file", {}, SourceLoc{path});
  }
  return results_from_json(buffer.str(), path);
}

}  // namespace qb::report
