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
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
  qb_label_discovered_tests(${name} "${ARG_LABELS}")
endfunction()

# qb_label_discovered_tests(<target> "<label>;<label>..." [RUN_SERIAL]): every test
# gtest_discover_tests found in <target> gets all the labels, and RUN_SERIAL when asked (tests that
# measure rates or CPU time, which a test on the other core would skew). gtest_discover_tests'
# PROPERTIES cannot carry a list: it reaches set_tests_properties split, as LABELS first-label and
# a property named by the second, silently dropping what follows (RUN_SERIAL was lost that way).
# A file CTest includes after the target's discovered tests sets them from the list the discovery
# leaves in <target>_TESTS.
function(qb_label_discovered_tests name labels)
  cmake_parse_arguments(ARG "RUN_SERIAL" "" "" ${ARGN})
  set(serial "")
  if(ARG_RUN_SERIAL)
    set(serial " RUN_SERIAL TRUE")
  endif()
  set(file "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
  file(WRITE "${file}"
       "if(${name}_TESTS)\n  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${labels}\"${serial})\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${file}")
endfunction()
