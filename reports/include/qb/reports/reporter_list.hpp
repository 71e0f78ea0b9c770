// The outputs of one command: reporters with where each one's output goes, built from the
// command's flags and written together. Every output is rendered before the first is written
// (bad input writes nothing); files are replaced atomically (write_file_atomically) before
// anything goes to a stream, so a file that cannot be written stops the command before its
// verdict is printed.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/reports/reporter.hpp"

namespace qb::report {

class ReporterList {
 public:
  struct Entry {
    std::unique_ptr<Reporter> reporter;
    std::string path;  // a file, or empty when `stream` is set
    std::ostream* stream = nullptr;
  };

  void add_file(std::unique_ptr<Reporter> reporter, std::string path);
  void add_stream(std::unique_ptr<Reporter> reporter, std::ostream& out);

  struct Declined {
    std::string reporter;  // Reporter::name()
    std::string reason;
  };

  /// The reporters that decline `input` (Reporter::declines), in the order added: write()
  /// leaves their outputs unwritten, so a command says why (a note per flag).
  std::vector<Declined> declined(const ReportInput& input) const;

  /// Renders every output but the declined ones; when one fails nothing is written and its
  /// error is returned. Then writes the files in the order added (stopping at the first that
  /// cannot be written), then the streams.
  Status write(const ReportInput& input) const;

  const std::vector<Entry>& entries() const noexcept { return entries_; }

 private:
  std::vector<Entry> entries_;
};

/// The file formats a command's flags can ask for.
enum class OutputFormat { json, html, junit };

struct OutputFile {
  OutputFormat format;
  std::string path;  // empty: the flag was not given
};

/// What a command's output flags ask for: files in the order the command writes them, and
/// what the console says (nothing when empty).
struct OutputRequest {
  std::vector<OutputFile> files;
  std::optional<ConsoleDetail> console;
  ConsoleOptions console_options;
  HtmlOptions html_options;

  /// The path given for `format`; empty when none was.
  std::string path_of(OutputFormat format) const;
};

/// One reporter per file with a path (json: make_json_reporter, html: make_html_reporter,
/// junit: make_junit_reporter), then the console reporter on `console` when asked for.
ReporterList reporters_for(const OutputRequest& request, std::ostream& console);

}  // namespace qb::report
