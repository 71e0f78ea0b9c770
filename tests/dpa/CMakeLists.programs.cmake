# Tests of dpa/programs (docs/dpa.md, "Programs").
# The programs replayed on hand-written traces, their registry and parameter specs.
qb_test(qb_dpa_programs_tests
  SOURCES
    ${CMAKE_CURRENT_SOURCE_DIR}/programs/pcc_rtt_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/programs/dcqcn_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/programs/reflector_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/programs/registry_test.cpp
    ${CMAKE_CURRENT_SOURCE_DIR}/programs/rate_bounds_test.cpp
  LIBS qb::dpa_programs
  LABELS unit)

# Each program builds on its own for the DPA compiler: C11, freestanding, no floating point,
# only the device API header reachable, no undefined symbols.
set(qb_dpa_builds_alone ${CMAKE_CURRENT_SOURCE_DIR}/programs/builds_alone.sh)
foreach(program pcc_rtt dcqcn reflector)
  add_test(NAME dpa_program_builds_alone_${program}
           COMMAND bash ${qb_dpa_builds_alone} ${CMAKE_C_COMPILER} ${PROJECT_SOURCE_DIR}/dpa/include
                   ${PROJECT_SOURCE_DIR}/dpa/programs/${program}.c ${CMAKE_NM})
  set_tests_properties(dpa_program_builds_alone_${program} PROPERTIES LABELS unit TIMEOUT 60)
endforeach()
# The check itself can fail: programs that use floating point or call a library are refused
# (passing means the script printed its refusal).
foreach(bad uses_float calls_malloc includes_libc)
  add_test(NAME dpa_program_builds_alone_refuses_${bad}
           COMMAND bash ${qb_dpa_builds_alone} ${CMAKE_C_COMPILER} ${PROJECT_SOURCE_DIR}/dpa/include
                   ${CMAKE_CURRENT_SOURCE_DIR}/programs/not_a_program/${bad}.c ${CMAKE_NM})
  set_tests_properties(dpa_program_builds_alone_refuses_${bad} PROPERTIES
    LABELS unit TIMEOUT 60 PASS_REGULAR_EXPRESSION "FAIL: .*(does not build alone|calls outside itself)")
endforeach()
