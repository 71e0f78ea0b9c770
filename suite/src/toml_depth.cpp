#include "toml_depth.hpp"

#include <fmt/format.h>

namespace qb::suite::detail {

namespace {

// Walks the text outside strings and comments. A segment is the text between two of
// = , { } [ ] and newline: a key (its dots separate parts) or a value (a float or a time has
// one dot at most), so the dots of a segment bound its key parts from above.
class DepthScanner {
 public:
  explicit DepthScanner(std::string_view text) : text_(text) {}

  std::optional<TomlDepthError> run() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '"' || c == '\'') {
        skip_string(c);
        continue;
      }
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
        continue;
      }
      if (c == '.') {
        if (++dots_ >= kMaxTomlKeyParts) {
          return error(
              fmt::format("a key or table header has more than {} dotted parts", kMaxTomlKeyParts));
        }
      } else if (c == '[' || c == '{') {
        dots_ = 0;
        if (++nesting_ > kMaxTomlNesting) {
          return error(
              fmt::format("arrays or inline tables nest deeper than {} levels", kMaxTomlNesting));
        }
      } else if (c == ']' || c == '}') {
        dots_ = 0;
        if (nesting_ > 0) --nesting_;
      } else if (c == '=' || c == ',' || c == '\n') {
        dots_ = 0;
      }
      advance();
    }
    return std::nullopt;
  }

 private:
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }

  bool at(std::string_view token) const { return text_.substr(pos_, token.size()) == token; }

  // A basic ("...") or literal ('...') string, one-line or multi-line; escapes only in basic.
  void skip_string(char quote) {
    const std::string_view triple = quote == '"' ? "\"\"\"" : "'''";
    const bool multi_line = at(triple);
    for (size_t i = 0; i < (multi_line ? 3U : 1U); ++i) advance();
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\\' && quote == '"') {
        advance();
        if (pos_ < text_.size()) advance();
        continue;
      }
      if (!multi_line && c == '\n') return;  // unterminated: the parser reports it
      if (multi_line ? at(triple) : c == quote) {
        for (size_t i = 0; i < (multi_line ? 3U : 1U); ++i) advance();
        return;
      }
      advance();
    }
  }

  TomlDepthError error(std::string message) const { return {std::move(message), line_, column_}; }

  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t column_ = 1;
  uint32_t dots_ = 0;
  uint32_t nesting_ = 0;
};

}  // namespace

std::optional<TomlDepthError> check_toml_depth(std::string_view text) {
  return DepthScanner(text).run();
}

}  // namespace qb::suite::detail
