
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/cli/compare.cpp" "cli/CMakeFiles/vtick.dir/compare.cpp.o" "gcc" "cli/CMakeFiles/vtick.dir/compare.cpp.o.d"
  "/work/main/cli/main.cpp" "cli/CMakeFiles/vtick.dir/main.cpp.o" "gcc" "cli/CMakeFiles/vtick.dir/main.cpp.o.d"
  "/work/main/cli/plot.cpp" "cli/CMakeFiles/vtick.dir/plot.cpp.o" "gcc" "cli/CMakeFiles/vtick.dir/plot.cpp.o.d"
  "/work/main/cli/run.cpp" "cli/CMakeFiles/vtick.dir/run.cpp.o" "gcc" "cli/CMakeFiles/vtick.dir/run.cpp.o.d"
  "/work/main/cli/sweep.cpp" "cli/CMakeFiles/vtick.dir/sweep.cpp.o" "gcc" "cli/CMakeFiles/vtick.dir/sweep.cpp.o.d"
  "/work/main/cli/sweep_tables.cpp" "cli/CMakeFiles/vtick.dir/sweep_tables.cpp.o" "gcc" "cli/CMakeFiles/vtick.dir/sweep_tables.cpp.o.d"
  "/work/main/cli/timeline.cpp" "cli/CMakeFiles/vtick.dir/timeline.cpp.o" "gcc" "cli/CMakeFiles/vtick.dir/timeline.cpp.o.d"
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
