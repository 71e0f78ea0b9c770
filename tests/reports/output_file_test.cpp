// Output files: a symbolic link is followed (its target written, the link kept), a FIFO is
// written through (not replaced by a regular file), a directory is an error.
#include "qb/reports/output_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace qb::report {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("qb_output_file_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string contents_of(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(OutputFile, RegularFileIsReplaced) {
  const fs::path dir = fresh_dir("regular");
  std::ofstream(dir / "out.json") << "old";
  ASSERT_TRUE(write_output_file((dir / "out.json").string(), "new").ok());
  EXPECT_EQ(contents_of(dir / "out.json"), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(OutputFile, SymlinkIsFollowedToItsTarget) {
  const fs::path dir = fresh_dir("symlink");
  std::ofstream(dir / "target.json") << "old";
  fs::create_symlink("target.json", dir / "link.json");
  ASSERT_TRUE(write_output_file((dir / "link.json").string(), "new").ok());
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(contents_of(dir / "target.json"), "new");
}

TEST(OutputFile, DanglingSymlinkCreatesItsTarget) {
  const fs::path dir = fresh_dir("dangling");
  fs::create_symlink(dir / "later.json", dir / "link.json");
  ASSERT_TRUE(write_output_file((dir / "link.json").string(), "new").ok());
  EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
  EXPECT_EQ(contents_of(dir / "later.json"), "new");
}

TEST(OutputFile, FifoIsWrittenThroughNotReplaced) {
  const fs::path dir = fresh_dir("fifo");
  const fs::path fifo = dir / "results.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // so the writer's open returns
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(write_output_file(fifo.string(), "through the pipe").ok());
  char buffer[64] = {};
  const ssize_t n = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0), "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(OutputFile, DirectoryIsAnError) {
  const fs::path dir = fresh_dir("directory");
  const auto written = write_output_file(dir.string(), "x");
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find(dir.string()), std::string::npos);
  EXPECT_TRUE(fs::is_directory(dir));
}

}  // namespace
}  // namespace qb::report
