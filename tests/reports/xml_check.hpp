// A small, strict XML 1.0 well-formedness checker for the tests (no DTDs, no CDATA, no PIs
// beyond the declaration): balanced tags, quoted and unique attributes, only the five named
// entities and character references, no raw '<' or '&', no control characters, one root.
// Returns the element tree so tests can count and inspect what they need.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace qb::testing {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;  // decoded
  std::vector<std::unique_ptr<XmlElement>> children;
  std::string text;  // decoded character data directly inside this element

  std::vector<const XmlElement*> all(const std::string& element_name) const {
    std::vector<const XmlElement*> out;
    collect(element_name, out);
    return out;
  }
  const XmlElement* child(const std::string& element_name) const {
    for (const auto& c : children) {
      if (c->name == element_name) return c.get();
    }
    return nullptr;
  }
  std::string attr(const std::string& key) const {
    const auto it = attributes.find(key);
    return it == attributes.end() ? std::string() : it->second;
  }

 private:
  void collect(const std::string& element_name, std::vector<const XmlElement*>& out) const {
    for (const auto& c : children) {
      if (c->name == element_name) out.push_back(c.get());
      c->collect(element_name, out);
    }
  }
};

class XmlChecker {
 public:
  explicit XmlChecker(const std::string& text) : s_(text) {}

  /// Throws std::runtime_error with the byte offset on the first problem.
  std::unique_ptr<XmlElement> parse() {
    if (s_.compare(0, 5, "<?xml") == 0) {
      const size_t end = s_.find("?>");
      if (end == std::string::npos) fail("unterminated XML declaration");
      i_ = end + 2;
    }
    skip_space();
    auto root = element();
    skip_space();
    if (i_ != s_.size()) fail("content after the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(what + " at byte " + std::to_string(i_));
  }
  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }
  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\n' || peek() == '\t' || peek() == '\r')) ++i_;
  }
  static bool name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.' ||
           c == ':';
  }
  std::string name() {
    const size_t start = i_;
    while (!at_end() && name_char(peek())) ++i_;
    if (start == i_) fail("expected a name");
    return s_.substr(start, i_ - start);
  }
  void check_char(unsigned char c) const {
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') fail("control character");
  }
  static void append_utf8(std::string& out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  void reference(std::string& out) {
    const size_t end = s_.find(';', i_);
    if (end == std::string::npos || end - i_ > 10) fail("bad reference");
    const std::string ref = s_.substr(i_ + 1, end - i_ - 1);
    if (ref == "amp")
      out += '&';
    else if (ref == "lt")
      out += '<';
    else if (ref == "gt")
      out += '>';
    else if (ref == "quot")
      out += '"';
    else if (ref == "apos")
      out += '\'';
    else if (ref.size() > 1 && ref[0] == '#') {
      const bool hex = ref[1] == 'x';
      const uint32_t code =
          static_cast<uint32_t>(std::stoul(ref.substr(hex ? 2 : 1), nullptr, hex ? 16 : 10));
      if (code < 0x20 && code != 0x9 && code != 0xA && code != 0xD)
        fail("reference to a control character");
      append_utf8(out, code);
    } else {
      fail("unknown entity &" + ref + ";");
    }
    i_ = end + 1;
  }
  std::unique_ptr<XmlElement> element() {
    if (peek() != '<') fail("expected '<'");
    ++i_;
    auto e = std::make_unique<XmlElement>();
    e->name = name();
    for (;;) {
      const size_t before = i_;
      skip_space();
      if (peek() == '/') {
        if (s_.compare(i_, 2, "/>") != 0) fail("expected '/>'");
        i_ += 2;
        return e;
      }
      if (peek() == '>') {
        ++i_;
        break;
      }
      if (before == i_) fail("expected whitespace before an attribute");
      const std::string key = name();
      skip_space();
      if (peek() != '=') fail("expected '='");
      ++i_;
      skip_space();
      const char quote = peek();
      if (quote != '"' && quote != '\'') fail("unquoted attribute value");
      ++i_;
      std::string value;
      while (!at_end() && peek() != quote) {
        const char c = peek();
        if (c == '<') fail("'<' in an attribute value");
        check_char(static_cast<unsigned char>(c));
        if (c == '&') {
          reference(value);
        } else {
          value += c;
          ++i_;
        }
      }
      if (at_end()) fail("unterminated attribute value");
      ++i_;
      if (!e->attributes.emplace(key, value).second) fail("duplicate attribute " + key);
    }
    for (;;) {
      if (at_end()) fail("unclosed element " + e->name);
      const char c = peek();
      if (c == '<') {
        if (s_.compare(i_, 2, "</") == 0) {
          i_ += 2;
          if (name() != e->name) fail("mismatched end tag for " + e->name);
          skip_space();
          if (peek() != '>') fail("expected '>'");
          ++i_;
          return e;
        }
        if (s_.compare(i_, 4, "<!--") == 0) {
          const size_t end = s_.find("-->", i_);
          if (end == std::string::npos) fail("unterminated comment");
          i_ = end + 3;
          continue;
        }
        e->children.push_back(element());
      } else if (c == '&') {
        reference(e->text);
      } else {
        if (c == '>' && i_ >= 2 && s_.compare(i_ - 2, 3, "]]>") == 0) fail("']]>' in text");
        check_char(static_cast<unsigned char>(c));
        e->text += c;
        ++i_;
      }
    }
  }

  const std::string& s_;
  size_t i_ = 0;
};

inline std::unique_ptr<XmlElement> parse_xml(const std::string& text) {
  return XmlChecker(text).parse();
}

}  // namespace qb::testing
