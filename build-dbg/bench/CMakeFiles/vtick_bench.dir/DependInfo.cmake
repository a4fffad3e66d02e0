
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/bench/vtick_bench.cpp" "bench/CMakeFiles/vtick_bench.dir/vtick_bench.cpp.o" "gcc" "bench/CMakeFiles/vtick_bench.dir/vtick_bench.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-dbg/sim/CMakeFiles/vtick_sim.dir/DependInfo.cmake"
  "/work/main/build-dbg/guest/CMakeFiles/vtick_guest.dir/DependInfo.cmake"
  "/work/main/build-dbg/host/CMakeFiles/vtick_host.dir/DependInfo.cmake"
  "/work/main/build-dbg/platform/CMakeFiles/vtick_platform.dir/DependInfo.cmake"
  "/work/main/build-dbg/core/CMakeFiles/vtick_core.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
