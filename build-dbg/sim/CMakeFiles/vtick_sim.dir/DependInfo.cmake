
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/sim/docs.cpp" "sim/CMakeFiles/vtick_sim.dir/docs.cpp.o" "gcc" "sim/CMakeFiles/vtick_sim.dir/docs.cpp.o.d"
  "/work/main/sim/fork_pool.cpp" "sim/CMakeFiles/vtick_sim.dir/fork_pool.cpp.o" "gcc" "sim/CMakeFiles/vtick_sim.dir/fork_pool.cpp.o.d"
  "/work/main/sim/metrics.cpp" "sim/CMakeFiles/vtick_sim.dir/metrics.cpp.o" "gcc" "sim/CMakeFiles/vtick_sim.dir/metrics.cpp.o.d"
  "/work/main/sim/results.cpp" "sim/CMakeFiles/vtick_sim.dir/results.cpp.o" "gcc" "sim/CMakeFiles/vtick_sim.dir/results.cpp.o.d"
  "/work/main/sim/scenario.cpp" "sim/CMakeFiles/vtick_sim.dir/scenario.cpp.o" "gcc" "sim/CMakeFiles/vtick_sim.dir/scenario.cpp.o.d"
  "/work/main/sim/simulation.cpp" "sim/CMakeFiles/vtick_sim.dir/simulation.cpp.o" "gcc" "sim/CMakeFiles/vtick_sim.dir/simulation.cpp.o.d"
  "/work/main/sim/stats.cpp" "sim/CMakeFiles/vtick_sim.dir/stats.cpp.o" "gcc" "sim/CMakeFiles/vtick_sim.dir/stats.cpp.o.d"
  "/work/main/sim/sweep.cpp" "sim/CMakeFiles/vtick_sim.dir/sweep.cpp.o" "gcc" "sim/CMakeFiles/vtick_sim.dir/sweep.cpp.o.d"
  "/work/main/sim/trace_format.cpp" "sim/CMakeFiles/vtick_sim.dir/trace_format.cpp.o" "gcc" "sim/CMakeFiles/vtick_sim.dir/trace_format.cpp.o.d"
  "/work/main/sim/trace_writer.cpp" "sim/CMakeFiles/vtick_sim.dir/trace_writer.cpp.o" "gcc" "sim/CMakeFiles/vtick_sim.dir/trace_writer.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-dbg/guest/CMakeFiles/vtick_guest.dir/DependInfo.cmake"
  "/work/main/build-dbg/host/CMakeFiles/vtick_host.dir/DependInfo.cmake"
  "/work/main/build-dbg/platform/CMakeFiles/vtick_platform.dir/DependInfo.cmake"
  "/work/main/build-dbg/core/CMakeFiles/vtick_core.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
