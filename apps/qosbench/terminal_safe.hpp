// Names come from suite and results files; a control character in one (ESC, BEL, a C1 CSI) would
// reach the terminal and set its title or clear the screen. Everything the command line prints on
// std::cout and std::cerr passes through one filter that shows such bytes as \xNN / \u00NN, as
// the HTML report shows them escaped; newlines and tabs (the layout) pass.
#pragma once

#include <iostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace qb::cli {

/// `text` with every control character (C0 except newline and tab, DEL, C1) written as an escape.
std::string terminal_safe(std::string_view text);

/// Escapes what is written through it, then hands it to `target` unbuffered (so the order with
/// C stdio writes to the same descriptor is kept).
class TerminalSafeBuf final : public std::streambuf {
 public:
  explicit TerminalSafeBuf(std::streambuf* target) : target_(target) {}
  std::streambuf* target() const { return target_; }

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* data, std::streamsize count) override;
  int sync() override;

 private:
  bool put(unsigned char byte);
  bool emit(std::string_view bytes);

  std::streambuf* target_;
  bool held_c2_ = false;  // a UTF-8 lead byte 0xC2 whose continuation may make a C1 control
};

/// While alive, std::cout and std::cerr write through a TerminalSafeBuf.
class TerminalSafeStreams {
 public:
  TerminalSafeStreams();
  ~TerminalSafeStreams();
  TerminalSafeStreams(const TerminalSafeStreams&) = delete;
  TerminalSafeStreams& operator=(const TerminalSafeStreams&) = delete;

 private:
  TerminalSafeBuf out_;
  TerminalSafeBuf err_;
};

}  // namespace qb::cli
