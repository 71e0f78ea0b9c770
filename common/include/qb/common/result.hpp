// Result<T>: the control-path error channel (an expected-style value-or-Error).
// Exceptions are used only at the parse and main() boundaries; library code returns Result.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace qb {

enum class Errc {
  invalid_config,       // bad input: the user must fix the suite or a file it names (exit 2)
  usage,                // bad command line (exit 2)
  not_supported,        // a normal answer: the driver/port cannot do this; callers check first
  unavailable,          // a driver or device is not present on this machine (exit 3)
  runtime,              // a driver or run-time failure (exit 3)
  io,                   // reading or writing a file failed (exit 3)
  invalid_measurement,  // the run produced no usable figures (exit 3)
};

/// Where in an input file something was found. line/column are 1-based; 0 means unknown.
struct SourceLoc {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
};

struct Error {
  Errc code = Errc::runtime;
  std::string message;
  std::string where;  // config key path ("sched.leaf[1].bw_share"), empty when not about a key
  SourceLoc loc;

  /// "file:line:col: error: where: message" (parts that are unknown are left out).
  std::string to_string() const;
};

/// Exit code of the command-line contract for an error: 2 for input/usage, 3 otherwise.
int exit_code_for(Errc code) noexcept;

inline Error make_error(Errc code, std::string message, std::string where = {},
                        SourceLoc loc = {}) {
  return Error{code, std::move(message), std::move(where), std::move(loc)};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design

  bool ok() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  const Error& error() const& { return error_; }
  Error&& error() && { return std::move(error_); }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace qb
