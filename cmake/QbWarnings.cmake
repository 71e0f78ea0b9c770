# Warning flags shared by every qosbench target (via qb_warnings).
add_library(qb_warnings INTERFACE)
target_compile_options(qb_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
if(QB_WERROR)
  target_compile_options(qb_warnings INTERFACE -Werror)
endif()
