# qb_library(<folder> DEPS ...): one static library per folder, exported as qb::<folder>.
# Sources are the folder's src/*.cpp (plus EXTRA_DIRS, e.g. drivers/sim); public headers live
# in <folder>/include/qb/<folder>/, private headers next to the sources.
function(qb_library name)
  cmake_parse_arguments(ARG "" "" "DEPS;PRIVATE_DEPS;EXTRA_DIRS" ${ARGN})
  set(globs ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
  foreach(dir ${ARG_EXTRA_DIRS})
    list(APPEND globs ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/*.cpp)
  endforeach()
  file(GLOB sources CONFIGURE_DEPENDS ${globs})
  add_library(qb_${name} STATIC ${sources})
  add_library(qb::${name} ALIAS qb_${name})
  target_include_directories(qb_${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
                                        PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(qb_${name} PUBLIC ${ARG_DEPS} PRIVATE qb_warnings ${ARG_PRIVATE_DEPS})
endfunction()
