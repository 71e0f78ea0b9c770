# tests/dpa/emulator: the DPA emulator's model (qb/dpa/emulator.hpp), with small test programs
# written against the device API.
qb_test(qb_dpa_emulator_tests
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/emulator/emulator_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/emulator/test_programs.cpp
  LIBS qb::dpa_emulator
  LABELS unit)
