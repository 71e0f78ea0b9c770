// Escaping for every markup qosbench writes (the HTML report, SVG, JUnit XML): & < > " ' become
// references; control characters XML 1.0 forbids and invalid UTF-8 become U+FFFD, so a hostile
// or corrupt name can neither break out of markup nor make the file unparsable.
#pragma once

#include <string>
#include <string_view>

namespace qb::report {

/// attribute = true also turns tab, newline and CR into character references (a parser would
/// otherwise normalise them to spaces inside attribute values).
std::string escape_markup(std::string_view text, bool attribute);

}  // namespace qb::report
