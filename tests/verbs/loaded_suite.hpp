// A suite of the repo loaded and compiled, for the verbs driver's tests that drive the driver
// (or the engine) with its plans.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::drv::verbs {

struct LoadedSuite {
  suite::Suite suite;
  std::vector<suite::CompiledScenario> compiled;
};

// `file` in configs/, or a path from the source root ("tests/verbs/...").
inline LoadedSuite load(const std::string& file) {
  const std::string path =
      std::string(QB_SOURCE_DIR) + (file.find('/') == std::string::npos ? "/configs/" : "/") + file;
  auto suite = suite::load_suite_file(path);
  EXPECT_TRUE(suite.ok()) << (suite.ok() ? "" : suite.error().to_string());
  LoadedSuite loaded{std::move(*suite), {}};
  std::vector<Warning> warnings;
  auto compiled = suite::compile_suite(loaded.suite, warnings);
  EXPECT_TRUE(compiled.ok()) << (compiled.ok() ? "" : compiled.error().to_string());
  loaded.compiled = std::move(*compiled);
  return loaded;
}

}  // namespace qb::drv::verbs
