// find_program()/program_names() over the shipped programs' registry (qb_dpa/programs.h):
// built only where dpa/programs is (tests/dpa/CMakeLists.emulator.cmake).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "qb/dpa/emulator.hpp"
#include "qb_dpa/programs.h"

namespace qb::dpa {
namespace {

using ::testing::Contains;

TEST(ProgramLookup, NamesEveryShippedProgram) {
  const std::vector<std::string> names = program_names();
  EXPECT_EQ(names.size(), qb_dpa_program_count());
  EXPECT_THAT(names, Contains("pcc_rtt"));
  EXPECT_THAT(names, Contains("dcqcn"));
  EXPECT_THAT(names, Contains("reflector"));
}

TEST(ProgramLookup, FindsEachShippedProgramByItsName) {
  EXPECT_EQ(find_program("pcc_rtt"), &qb_dpa_program_pcc_rtt);
  EXPECT_EQ(find_program("dcqcn"), &qb_dpa_program_dcqcn);
  EXPECT_EQ(find_program("reflector"), &qb_dpa_program_reflector);
  for (const std::string& name : program_names()) {
    ASSERT_NE(find_program(name), nullptr) << name;
    EXPECT_EQ(find_program(name)->name, name);
  }
}

TEST(ProgramLookup, AnUnknownNameIsNull) {
  EXPECT_EQ(find_program("pcc"), nullptr);
  EXPECT_EQ(find_program("pcc_rtt "), nullptr);
  EXPECT_EQ(find_program(""), nullptr);
}

}  // namespace
}  // namespace qb::dpa
