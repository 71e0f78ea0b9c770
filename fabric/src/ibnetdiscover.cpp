#include "qb/fabric/ibnetdiscover.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <utility>

namespace qb::fabric {
namespace {

// One line being scanned, with 1-based columns for errors.
class LineScanner {
 public:
  LineScanner(std::string_view line, uint32_t number, const std::string& file)
      : line_(line), number_(number), file_(file) {}

  SourceLoc loc() const { return SourceLoc{file_, number_, static_cast<uint32_t>(pos_ + 1)}; }
  SourceLoc loc_at(size_t pos) const {
    return SourceLoc{file_, number_, static_cast<uint32_t>(pos + 1)};
  }
  bool at_end() const { return pos_ >= line_.size(); }
  bool consume(char c) {
    if (at_end() || line_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  char peek() const { return at_end() ? '\0' : line_[pos_]; }
  size_t pos() const { return pos_; }
  void skip_blanks() {
    while (!at_end() && (line_[pos_] == ' ' || line_[pos_] == '\t' || line_[pos_] == '\r')) ++pos_;
  }
  bool at_comment_or_end() {
    skip_blanks();
    return at_end() || peek() == '#';
  }
  std::string_view rest() const { return line_.substr(std::min(pos_, line_.size())); }

  [[noreturn]] void fail(std::string message) const { fail_at(pos_, std::move(message)); }
  [[noreturn]] void fail_at(size_t pos, std::string message) const {
    throw Error{Errc::invalid_config, std::move(message), "", loc_at(pos)};
  }

  std::string_view word() {
    skip_blanks();
    const size_t start = pos_;
    while (!at_end() && std::isalnum(static_cast<unsigned char>(line_[pos_])) != 0) ++pos_;
    return line_.substr(start, pos_ - start);
  }
  uint32_t number(const char* what, uint32_t max) {
    skip_blanks();
    const size_t start = pos_;
    uint64_t value = 0;
    while (!at_end() && std::isdigit(static_cast<unsigned char>(line_[pos_])) != 0) {
      value = value * 10 + static_cast<uint64_t>(line_[pos_] - '0');
      if (value > max) fail_at(start, fmt::format("{} is above {}", what, max));
      ++pos_;
    }
    if (pos_ == start) fail(fmt::format("expected {} (a number)", what));
    return static_cast<uint32_t>(value);
  }
  std::string quoted(const char* what) {
    skip_blanks();
    if (peek() != '"') fail(fmt::format("expected {} in double quotes", what));
    const size_t start = ++pos_;
    while (!at_end() && line_[pos_] != '"') ++pos_;
    if (at_end()) fail_at(start - 1, fmt::format("{} has no closing quote", what));
    std::string text(line_.substr(start, pos_ - start));
    ++pos_;
    return text;
  }
  // "[n]"
  uint32_t bracket_port(const char* what) {
    skip_blanks();
    if (peek() != '[') fail(fmt::format("expected {} as [n]", what));
    ++pos_;
    const size_t start = pos_;
    const uint32_t port = number(what, kMaxSwitchPorts);
    if (peek() != ']') fail(fmt::format("expected ']' after {}", what));
    ++pos_;
    if (port == 0) fail_at(start, fmt::format("{} 0 is a switch's management port, not a link",
                                              what));
    return port;
  }
  // "(hexguid)", optional: 0 when absent.
  uint64_t optional_guid() {
    if (peek() != '(') return 0;
    const size_t start = pos_++;
    size_t digits = 0;
    uint64_t guid = 0;
    while (!at_end() && std::isxdigit(static_cast<unsigned char>(line_[pos_])) != 0) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(line_[pos_])));
      guid = guid * 16 + static_cast<uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
      ++pos_;
      ++digits;
    }
    if (peek() != ')' || digits == 0 || digits > 16) {
      fail_at(start, "expected a port GUID as (hex digits)");
    }
    ++pos_;
    return guid;
  }

 private:
  std::string_view line_;
  size_t pos_ = 0;
  uint32_t number_;
  const std::string& file_;
};

// ibstat's Rate per lane, Gbit/s.
double lane_gbps(std::string_view speed) {
  static constexpr std::pair<std::string_view, double> kSpeeds[] = {
      {"SDR", 2.5}, {"DDR", 5.0},  {"QDR", 10.0}, {"FDR10", 10.0}, {"FDR", 14.0},
      {"EDR", 25.0}, {"HDR", 50.0}, {"NDR", 100.0}, {"XDR", 200.0}};
  for (const auto& [name, gbps] : kSpeeds) {
    if (speed == name) return gbps;
  }
  return 0.0;
}

bool valid_width(uint32_t width) {
  return width == 1 || width == 2 || width == 4 || width == 8 || width == 12;
}

// A "<width>x<SPEED>" token anywhere in a comment (the last one wins), or 0.
double comment_rate_bps(std::string_view comment) {
  double rate = 0.0;
  for (size_t i = 0; i < comment.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(comment[i])) == 0) continue;
    if (i > 0 && std::isalnum(static_cast<unsigned char>(comment[i - 1])) != 0) continue;
    size_t j = i;
    uint32_t width = 0;
    while (j < comment.size() && std::isdigit(static_cast<unsigned char>(comment[j])) != 0 &&
           width < 100) {
      width = width * 10 + static_cast<uint32_t>(comment[j] - '0');
      ++j;
    }
    if (j >= comment.size() || comment[j] != 'x') continue;
    size_t k = ++j;
    while (k < comment.size() && std::isalnum(static_cast<unsigned char>(comment[k])) != 0) ++k;
    const double gbps = lane_gbps(comment.substr(j, k - j));
    if (gbps > 0.0 && valid_width(width)) rate = gbps * 1e9 * width;
    i = k;
  }
  return rate;
}

IbnetPort parse_port_line(LineScanner& s) {
  IbnetPort port;
  port.loc = s.loc();
  port.port = s.bracket_port("the local port");
  port.port_guid = s.optional_guid();
  port.remote = s.quoted("the remote node id");
  if (port.remote.empty()) s.fail("the remote node id is empty");
  port.remote_port = s.bracket_port("the remote port");
  port.remote_port_guid = s.optional_guid();
  s.skip_blanks();
  // ibsim: "w=1|4|12", the link's width. Checked and left out: the speed is not in the file,
  // so the link runs at the suite's rate.
  if (s.peek() == 'w') {
    const size_t at = s.pos();
    const std::string_view key = s.word();
    if (key != "w" || !s.consume('=')) s.fail_at(at, "expected w=<width> or a comment");
    const size_t width_at = s.pos();
    if (!valid_width(s.number("the link width", 12))) {
      s.fail_at(width_at, "a link width is 1, 2, 4, 8 or 12");
    }
  }
  if (!s.at_comment_or_end()) s.fail("unexpected text after the port (a comment starts with #)");
  if (!s.at_end()) port.rate_bps = comment_rate_bps(s.rest());
  return port;
}

}  // namespace

Result<IbnetFile> parse_ibnetdiscover(std::string_view text, const std::string& file) {
  IbnetFile out;
  try {
    uint32_t number = 0;
    IbnetNode* current = nullptr;
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      const std::string_view line = text.substr(start, end - start);
      start = end + 1;
      ++number;
      LineScanner s(line, number, file);
      for (size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\0') s.fail_at(i, "a NUL byte: not a text file");
      }
      if (s.at_comment_or_end()) {
        if (s.at_end()) current = nullptr;  // a blank line ends a record
        continue;
      }
      if (s.peek() == '[') {
        if (current == nullptr) {
          s.fail("a port line outside a node record (a Switch or Ca line comes first)");
        }
        IbnetPort port = parse_port_line(s);
        if (port.port > current->ports) {
          s.fail_at(line.find('['), fmt::format("port {} of '{}', which has {} ports", port.port,
                                                current->id, current->ports));
        }
        for (const IbnetPort& other : current->links) {
          if (other.port == port.port) {
            s.fail_at(line.find('['), fmt::format("port {} of '{}' is listed twice (first at "
                                                  "line {})",
                                                  port.port, current->id, other.loc.line));
          }
        }
        current->links.push_back(std::move(port));
        continue;
      }
      const size_t word_at = s.pos();
      const std::string_view word = s.word();
      if (s.peek() == '=') continue;  // vendid=, devid=, sysimgguid=, switchguid=, caguid=
      if (word == "include" || word == "do") {
        s.fail_at(word_at, fmt::format("ibsim's '{}' lines are not supported", word));
      }
      if (word == "Rt") s.fail_at(word_at, "routers (Rt) are not modelled");
      if (word != "Switch" && word != "Ca" && word != "Hca") {
        s.fail_at(word_at, word.empty() ? std::string("expected a node record (Switch or Ca), "
                                                      "a [port] line or a comment")
                                        : fmt::format("unknown node type '{}' (use Switch or "
                                                      "Ca)",
                                                      word));
      }
      IbnetNode node;
      node.is_switch = word == "Switch";
      node.loc = s.loc_at(word_at);
      node.ports = s.number("the port count", kMaxSwitchPorts);
      if (node.ports == 0) s.fail("a node has at least one port");
      node.id = s.quoted("the node id");
      if (node.id.empty()) s.fail("the node id is empty");
      s.skip_blanks();
      // "enhanced port 0 lid ..." etc. may follow only in the comment.
      if (!s.at_comment_or_end()) s.fail("unexpected text after the node id (a comment starts "
                                         "with #)");
      if (!s.at_end()) {
        LineScanner comment(s.rest().substr(1), number, file);
        comment.skip_blanks();
        if (comment.peek() == '"') {
          try {
            node.description = comment.quoted("description");
          } catch (const Error&) {
            // A description is decoration: an unterminated one is left out.
          }
        }
      }
      out.nodes.push_back(std::move(node));
      current = &out.nodes.back();
    }
  } catch (Error& error) {
    return std::move(error);
  }
  if (out.nodes.empty()) {
    return make_error(Errc::invalid_config, "the topology file has no Switch or Ca record", "",
                      SourceLoc{file, 1, 1});
  }
  return out;
}

Result<Topology> ibnet_topology(const IbnetFile& parsed, double rate_bps, int64_t delay_ns,
                                const std::string& where) {
  TopologyBuilder builder;
  std::vector<uint32_t> ids;
  // Hosts first, in file order, so host indices follow the file's Ca records.
  for (const bool switches : {false, true}) {
    for (const IbnetNode& node : parsed.nodes) {
      if (node.is_switch != switches) continue;
      auto id = switches ? builder.add_switch(node.id, node.ports, where, node.loc)
                         : builder.add_host(node.id, where, node.loc);
      if (!id) return id.error();
    }
  }
  // Each cable once: the first end listed adds it; the other end's line must say the same.
  struct End {
    uint32_t node, port;
    bool operator==(const End&) const = default;
  };
  struct EndHash {
    size_t operator()(const End& e) const noexcept { return (size_t{e.node} << 8) ^ e.port; }
  };
  std::unordered_map<End, std::pair<End, const IbnetPort*>, EndHash> claimed;
  for (const IbnetNode& node : parsed.nodes) {
    const uint32_t self = *builder.find_node(node.id);
    for (const IbnetPort& port : node.links) {
      const auto remote = builder.find_node(port.remote);
      if (!remote) {
        return make_error(Errc::invalid_config,
                          fmt::format("a link to an unknown node '{}' (no Switch or Ca record "
                                      "has that id)",
                                      port.remote),
                          where, port.loc);
      }
      const End here{self, port.port}, there{*remote, port.remote_port};
      if (const auto it = claimed.find(here); it != claimed.end()) {
        if (!(it->second.first == there)) {
          return make_error(
              Errc::invalid_config,
              fmt::format("'{}'[{}] is listed here as linked to '{}'[{}], but line {} links it "
                          "to '{}'[{}]",
                          node.id, port.port, port.remote, port.remote_port,
                          it->second.second->loc.line, builder.node(it->second.first.node).name,
                          it->second.first.port),
              where, port.loc);
        }
        continue;  // the other end of a cable already added
      }
      if (const auto it = claimed.find(there); it != claimed.end()) {
        return make_error(Errc::invalid_config,
                          fmt::format("'{}'[{}] is already linked to '{}'[{}] (line {})",
                                      port.remote, port.remote_port,
                                      builder.node(it->second.first.node).name,
                                      it->second.first.port, it->second.second->loc.line),
                          where, port.loc);
      }
      claimed.emplace(here, std::pair{there, &port});
      claimed.emplace(there, std::pair{here, &port});
      const double rate = port.rate_bps > 0.0 ? port.rate_bps : rate_bps;
      if (auto status = builder.add_link(self, port.port, *remote, port.remote_port, rate,
                                         delay_ns, where, port.loc);
          !status) {
        return status.error();
      }
    }
  }
  return std::move(builder).finish();
}

Result<Topology> load_ibnetdiscover(const std::string& path, double rate_bps, int64_t delay_ns,
                                    const std::string& where, const SourceLoc& loc) {
  std::FILE* stream = std::fopen(path.c_str(), "rb");
  if (stream == nullptr) {
    return make_error(Errc::invalid_config,
                      fmt::format("cannot open topology file '{}': {}", path, std::strerror(errno)),
                      where, loc);
  }
  std::string text;
  char buffer[65536];
  size_t got = 0;
  bool too_big = false;
  while ((got = std::fread(buffer, 1, sizeof buffer, stream)) > 0) {
    text.append(buffer, got);
    if (text.size() > kMaxIbnetFileBytes) {
      too_big = true;
      break;
    }
  }
  const bool failed = std::ferror(stream) != 0;
  std::fclose(stream);
  if (failed || too_big) {
    return make_error(Errc::invalid_config,
                      too_big ? fmt::format("topology file '{}' is larger than {} MiB", path,
                                            kMaxIbnetFileBytes >> 20)
                              : fmt::format("cannot read topology file '{}'", path),
                      where, loc);
  }
  auto parsed = parse_ibnetdiscover(text, path);
  if (!parsed) {
    Error error = std::move(parsed).error();
    error.where = where;
    return error;
  }
  return ibnet_topology(*parsed, rate_bps, delay_ns, where);
}

}  // namespace qb::fabric
