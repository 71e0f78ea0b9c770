# Compile through ccache when it is installed (scripts/setup.sh installs it): a rebuild of
# unchanged sources comes from the cache, in any build directory and any clone. CI builds a fresh
# clone three times (plain, ASan, TSan) on a machine that keeps its cache between runs
# (docs/testing.md, "Build time"). base_dir and no hash_dir make a hit independent of where the
# clone is (debug info then names the first clone's directory: a debugger's source path only).
option(QB_CCACHE "Compile through ccache when it is installed" ON)
if(QB_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(QB_CCACHE_PROGRAM ccache)
  if(QB_CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER
        ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} CCACHE_NOHASHDIR=1
        CCACHE_MAXSIZE=12G ${QB_CCACHE_PROGRAM})
    message(STATUS "ccache: ${QB_CCACHE_PROGRAM}")
  endif()
endif()
