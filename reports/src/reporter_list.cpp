#include "qb/reports/reporter_list.hpp"

#include "qb/reports/output_file.hpp"

namespace qb::report {

void ReporterList::add_file(std::unique_ptr<Reporter> reporter, std::string path) {
  entries_.push_back({std::move(reporter), std::move(path), nullptr});
}

void ReporterList::add_stream(std::unique_ptr<Reporter> reporter, std::ostream& out) {
  entries_.push_back({std::move(reporter), {}, &out});
}

std::vector<ReporterList::Declined> ReporterList::declined(const ReportInput& input) const {
  std::vector<Declined> out;
  for (const Entry& entry : entries_) {
    if (auto reason = entry.reporter->declines(input)) {
      out.push_back({std::string(entry.reporter->name()), std::move(*reason)});
    }
  }
  return out;
}

Status ReporterList::write(const ReportInput& input) const {
  // Empty: the reporter declined `input`, nothing of it is written.
  std::vector<std::optional<std::string>> rendered;
  rendered.reserve(entries_.size());
  for (const Entry& entry : entries_) {
    if (entry.reporter->declines(input)) {
      rendered.emplace_back();
      continue;
    }
    auto output = entry.reporter->render(input);
    if (!output) return std::move(output).error();
    rendered.emplace_back(std::move(*output));
  }
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].stream != nullptr || !rendered[i]) continue;
    if (auto written = write_output_file(entries_[i].path, *rendered[i]); !written) {
      return written;
    }
  }
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].stream == nullptr || !rendered[i]) continue;
    entries_[i].stream->write(rendered[i]->data(),
                              static_cast<std::streamsize>(rendered[i]->size()));
    entries_[i].stream->flush();
  }
  return {};
}

std::string OutputRequest::path_of(OutputFormat format) const {
  for (const OutputFile& file : files) {
    if (file.format == format && !file.path.empty()) return file.path;
  }
  return {};
}

ReporterList reporters_for(const OutputRequest& request, std::ostream& console) {
  ReporterList list;
  for (const OutputFile& file : request.files) {
    if (file.path.empty()) continue;
    switch (file.format) {
      case OutputFormat::json:
        list.add_file(make_json_reporter(), file.path);
        break;
      case OutputFormat::html:
        list.add_file(make_html_reporter(request.html_options), file.path);
        break;
      case OutputFormat::junit:
        list.add_file(make_junit_reporter(), file.path);
        break;
    }
  }
  if (request.console) {
    list.add_stream(make_console_reporter(*request.console, request.console_options), console);
  }
  return list;
}

}  // namespace qb::report
