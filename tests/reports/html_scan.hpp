// Reading the HTML report in tests without a DOM: counting text, finding the opening tags of a
// class, reading an attribute of a tag.
#pragma once

#include <cstddef>
#include <regex>
#include <string>
#include <vector>

namespace qb::report::testing {

inline size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

/// The opening tags (with their attributes) carrying class `cls` (as the first class).
inline std::vector<std::string> tags_with_class(const std::string& html, const std::string& cls) {
  std::vector<std::string> tags;
  const std::regex re("<[a-z]+ class=\"" + cls + "( [^\"]*)?\"[^>]*>");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), re); it != std::sregex_iterator();
       ++it) {
    tags.push_back(it->str());
  }
  return tags;
}

/// The value of attribute `name` in an opening tag; "<missing>" when it has none.
inline std::string attr(const std::string& tag, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const size_t pos = tag.find(key);
  if (pos == std::string::npos) return "<missing>";
  const size_t start = pos + key.size();
  return tag.substr(start, tag.find('"', start) - start);
}

}  // namespace qb::report::testing
