# tests/dpa/emulator: the DPA emulator's model (qb/dpa/emulator.hpp), with small test programs
# written against the device API.
qb_test(qb_dpa_emulator_tests
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/emulator/emulator_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/emulator/overload_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/emulator/test_programs.cpp
  LIBS qb::dpa_emulator
  LABELS unit)
# find_program() exists only where the shipped programs do (dpa/emulator/CMakeLists.txt).
if(TARGET qb_dpa_programs)
  qb_test(qb_dpa_program_lookup_tests
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/emulator/program_lookup_test.cpp
    LIBS qb::dpa_emulator
    LABELS unit)
endif()
