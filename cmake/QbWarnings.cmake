# Warning flags shared by every qosbench target (via qb_warnings).
add_library(qb_warnings INTERFACE)
target_compile_options(qb_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
if(QB_WERROR)
  target_compile_options(qb_warnings INTERFACE -Werror)
endif()

# GCC 12 at -O2/-O3 reports -Wrestrict inside libstdc++'s std::string for plain concatenations
# (GCC bug 105329, a false positive); it would fail every Release build with -Werror.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(qb_warnings INTERFACE -Wno-restrict)
endif()
