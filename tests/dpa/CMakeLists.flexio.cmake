# tests/dpa/flexio: the FlexIO loader driven through the seam by the fake SDK (no DPA needed).
file(GLOB flexio_test_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/flexio/*_test.cpp)
qb_test(qb_dpa_flexio_tests SOURCES ${flexio_test_sources}
        LIBS qb::dpa_flexio qb::dpa_flexio_fake fmt::fmt LABELS unit)
