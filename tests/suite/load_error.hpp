// What the suite loader tests share: a load error expected at its key path and line:column.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "qb/suite/suite_loader.hpp"

namespace qb::suite::test_support {

struct Expected {
  std::string_view where;
  uint32_t line;
  uint32_t column;
  std::string_view message_part;
};

/// `error` is a configuration error at `expected`'s key path, line and column, with
/// `message_part` in its message.
inline void expect_error(const Error& error, const Expected& expected) {
  EXPECT_EQ(error.code, Errc::invalid_config);
  EXPECT_EQ(error.where, expected.where) << error.to_string();
  EXPECT_EQ(error.loc.line, expected.line) << error.to_string();
  EXPECT_EQ(error.loc.column, expected.column) << error.to_string();
  EXPECT_NE(error.message.find(expected.message_part), std::string::npos) << error.to_string();
}

/// Loading `text` as the file `file` fails with that error, located in `file`.
inline void expect_load_error(std::string_view text, std::string_view file,
                              const Expected& expected) {
  SCOPED_TRACE(std::string(text));
  auto suite = load_suite_string(text, std::string(file));
  ASSERT_FALSE(suite) << "loaded although it should not";
  EXPECT_EQ(suite.error().loc.file, file) << suite.error().to_string();
  expect_error(suite.error(), expected);
}

}  // namespace qb::suite::test_support
