// Reading a JSON document field by field with the path of every value ("scenarios[0].mtu_bytes"),
// so that a bad file is reported at the field that is wrong. Type and range checks come before
// every conversion; a failure throws FieldError, which the reader turns into an Error.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace qb::report {

// ordered_json keeps objects in file order, so writer -> reader -> writer is byte-equal.
using Json = nlohmann::ordered_json;

// A bad field: thrown inside the reader only, turned into an Error at its boundary.
struct FieldError {
  std::string path;
  std::string message;
};

std::string child_path(const std::string& path, std::string_view key);
std::string index_path(const std::string& path, size_t index);

// One JSON value and where it sits in the document.
class JsonNode {
 public:
  JsonNode(const Json& value, std::string path) : value_(value), path_(std::move(path)) {}

  const std::string& path() const noexcept { return path_; }
  const Json& json() const noexcept { return value_; }

  bool has(std::string_view key) const { return value_.is_object() && value_.contains(key); }

  /// The member `key` of an object; FieldError when this is no object or `key` is missing.
  JsonNode operator[](std::string_view key) const;

  const Json& array() const;

  template <class Fn>
  void each(Fn&& fn) const {
    const Json& items = array();
    for (size_t i = 0; i < items.size(); ++i) fn(JsonNode(items[i], index_path(path_, i)));
  }

  std::string str() const;
  bool boolean() const;

  // The writer turns a non-finite figure into null; `null_as` is what that figure was.
  double number(double null_as = std::numeric_limits<double>::quiet_NaN()) const;
  std::optional<double> optional_number() const;

  template <class Int>
  Int integer() const {
    if (!value_.is_number_integer()) fail("expected an integer, found " + type_name());
    if constexpr (std::is_unsigned_v<Int>) {
      if (!value_.is_number_unsigned()) fail("expected a non-negative integer");
      const auto raw = value_.get<uint64_t>();
      if (raw > std::numeric_limits<Int>::max()) fail("integer out of range");
      return static_cast<Int>(raw);
    } else {
      if (value_.is_number_unsigned() &&
          value_.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<Int>::max())) {
        fail("integer out of range");
      }
      return static_cast<Int>(value_.get<int64_t>());
    }
  }

  std::vector<double> numbers() const;
  std::vector<int64_t> integers() const;

  /// Throws FieldError at this node's path.
  [[noreturn]] void fail(std::string message) const;

 private:
  std::string type_name() const { return std::string(value_.type_name()); }

  const Json& value_;
  std::string path_;
};

}  // namespace qb::report
