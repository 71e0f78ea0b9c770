# qb_test(<name> SOURCES ... LIBS ... LABELS ...): one GoogleTest executable, its cases
# registered with CTest and labelled (unit, e2e, dpdk, conformance).
function(qb_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gmock GTest::gtest_main qb_warnings)
  target_compile_definitions(${name} PRIVATE
    QB_SOURCE_DIR="${PROJECT_SOURCE_DIR}" QB_BINARY_DIR="${PROJECT_BINARY_DIR}")
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}" DISCOVERY_TIMEOUT 60)
endfunction()
