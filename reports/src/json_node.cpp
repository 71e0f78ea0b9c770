#include "json_node.hpp"

#include <fmt/format.h>

namespace qb::report {

std::string child_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

std::string index_path(const std::string& path, size_t index) {
  return fmt::format("{}[{}]", path, index);
}

JsonNode JsonNode::operator[](std::string_view key) const {
  if (!value_.is_object()) fail("expected an object, found " + type_name());
  const auto it = value_.find(key);
  if (it == value_.end()) throw FieldError{child_path(path_, key), "missing field"};
  return JsonNode(*it, child_path(path_, key));
}

const Json& JsonNode::array() const {
  if (!value_.is_array()) fail("expected an array, found " + type_name());
  return value_;
}

std::string JsonNode::str() const {
  if (!value_.is_string()) fail("expected a string, found " + type_name());
  return value_.get<std::string>();
}

bool JsonNode::boolean() const {
  if (!value_.is_boolean()) fail("expected true or false, found " + type_name());
  return value_.get<bool>();
}

double JsonNode::number(double null_as) const {
  if (value_.is_null()) return null_as;
  if (!value_.is_number()) fail("expected a number, found " + type_name());
  return value_.get<double>();
}

std::optional<double> JsonNode::optional_number() const {
  if (value_.is_null()) return std::nullopt;
  return number();
}

std::vector<double> JsonNode::numbers() const {
  std::vector<double> out;
  each([&](const JsonNode& item) { out.push_back(item.number()); });
  return out;
}

std::vector<int64_t> JsonNode::integers() const {
  std::vector<int64_t> out;
  each([&](const JsonNode& item) { out.push_back(item.integer<int64_t>()); });
  return out;
}

void JsonNode::fail(std::string message) const {
  throw FieldError{path_, std::move(message)};
}

}  // namespace qb::report
