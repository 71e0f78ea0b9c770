#include "terminal_safe.hpp"

#include <fmt/format.h>

namespace qb::cli {
namespace {

constexpr unsigned char kUtf8C1Lead = 0xC2;

bool is_c0_or_del(unsigned char byte) {
  return (byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7F;
}

bool is_c1_continuation(unsigned char byte) {
  return byte >= 0x80 && byte <= 0x9F;
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (is_c0_or_del(byte)) {
      out += fmt::format("\\x{:02x}", byte);
    } else if (byte == kUtf8C1Lead && i + 1 < text.size() &&
               is_c1_continuation(static_cast<unsigned char>(text[i + 1]))) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[++i]));
    } else {
      out += static_cast<char>(byte);
    }
  }
  return out;
}

bool TerminalSafeBuf::emit(std::string_view bytes) {
  return target_->sputn(bytes.data(), static_cast<std::streamsize>(bytes.size())) ==
         static_cast<std::streamsize>(bytes.size());
}

bool TerminalSafeBuf::put(unsigned char byte) {
  if (held_c2_) {
    held_c2_ = false;
    if (is_c1_continuation(byte)) return emit(fmt::format("\\u{:04x}", byte));
    if (!emit(std::string_view("\xC2", 1))) return false;
  }
  if (byte == kUtf8C1Lead) {
    held_c2_ = true;
    return true;
  }
  if (is_c0_or_del(byte)) return emit(fmt::format("\\x{:02x}", byte));
  const char c = static_cast<char>(byte);
  return emit(std::string_view(&c, 1));
}

TerminalSafeBuf::int_type TerminalSafeBuf::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  return put(static_cast<unsigned char>(traits_type::to_char_type(ch))) ? ch : traits_type::eof();
}

std::streamsize TerminalSafeBuf::xsputn(const char* data, std::streamsize count) {
  // Runs of plain bytes go through in one call; only the bytes to escape are handled one by one.
  std::streamsize done = 0;
  while (done < count) {
    std::streamsize plain = done;
    if (!held_c2_) {
      while (plain < count) {
        const auto byte = static_cast<unsigned char>(data[plain]);
        if (is_c0_or_del(byte) || byte == kUtf8C1Lead) break;
        ++plain;
      }
    }
    if (plain > done) {
      if (!emit(std::string_view(data + done, static_cast<size_t>(plain - done)))) return done;
      done = plain;
      continue;
    }
    if (!put(static_cast<unsigned char>(data[done]))) return done;
    ++done;
  }
  return done;
}

int TerminalSafeBuf::sync() {
  if (held_c2_) {
    held_c2_ = false;
    if (!emit(std::string_view("\xC2", 1))) return -1;
  }
  return target_->pubsync();
}

TerminalSafeStreams::TerminalSafeStreams() : out_(std::cout.rdbuf()), err_(std::cerr.rdbuf()) {
  std::cout.rdbuf(&out_);
  std::cerr.rdbuf(&err_);
}

TerminalSafeStreams::~TerminalSafeStreams() {
  std::cout.flush();
  std::cerr.flush();
  std::cout.rdbuf(out_.target());
  std::cerr.rdbuf(err_.target());
}

}  // namespace qb::cli
