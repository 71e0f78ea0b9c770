// Shared by the FlexIO tests: a stand-in DPA program file and call-log helpers.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace qb::dpa::flexio::testing {

inline constexpr std::string_view kHandlerSymbol = "qb_flexio_handler";

/// The bytes of a stand-in ELF image: the magic, padding, and a string table naming `symbols`
/// (what the fake looks for; the real SDK parses a dpacc-built image).
inline std::vector<std::byte> program_image(const std::vector<std::string>& symbols) {
  std::string text(
      "\x7f"
      "ELF\x02\x01\x01",
      7);
  text.append(57, '\0');  // the rest of a 64-byte ELF header
  for (const std::string& symbol : symbols) {
    text += symbol;
    text.push_back('\0');
  }
  std::vector<std::byte> bytes;
  for (char c : text) bytes.push_back(static_cast<std::byte>(c));
  return bytes;
}

/// The directories the tests wrote to, removed when the test process exits.
struct WrittenDirectories {
  std::vector<std::filesystem::path> paths;
  ~WrittenDirectories() {
    std::error_code ignored;
    for (const auto& path : paths) std::filesystem::remove_all(path, ignored);
  }
};
inline WrittenDirectories& written_directories() {
  static WrittenDirectories directories;
  return directories;
}

/// Writes a stand-in program to a directory of this test and process (ctest runs the cases in
/// parallel processes); returns its path.
inline std::string write_program_file(const std::string& file_name,
                                      const std::vector<std::string>& symbols = {
                                          std::string(kHandlerSymbol)}) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path directory = std::filesystem::path(::testing::TempDir()) /
                                          ("qb_flexio_" + std::string(test->test_suite_name()) +
                                           "_" + test->name() + "_" + std::to_string(getpid()));
  std::filesystem::create_directories(directory);
  written_directories().paths.push_back(directory);
  const std::string path = (directory / file_name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  for (std::byte b : program_image(symbols)) out.put(static_cast<char>(b));
  return path;
}

/// "flexio_cq_create" of "flexio_cq_create(process#3, ...) = cq#8".
inline std::string function_of(const std::string& call) {
  return call.substr(0, call.find('('));
}

/// "cq#8" of "flexio_cq_create(...) = cq#8" (empty when the call made nothing).
inline std::string result_of(const std::string& call) {
  const size_t at = call.rfind(" = ");
  if (at == std::string::npos || call.find(" -> ") != std::string::npos) return {};
  return call.substr(at + 3);
}

/// "process#3" of "flexio_copy_from_host(process#3, 8 bytes)": the first argument.
inline std::string first_argument_of(const std::string& call) {
  const size_t open = call.find('(');
  const size_t end = call.find_first_of(",)", open);
  return call.substr(open + 1, end - open - 1);
}

}  // namespace qb::dpa::flexio::testing
