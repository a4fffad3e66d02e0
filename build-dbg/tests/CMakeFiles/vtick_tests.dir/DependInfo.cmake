
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/tests/helpers.cpp" "tests/CMakeFiles/vtick_tests.dir/helpers.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/helpers.cpp.o.d"
  "/work/main/tests/test_cli.cpp" "tests/CMakeFiles/vtick_tests.dir/test_cli.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/test_cli.cpp.o.d"
  "/work/main/tests/test_core.cpp" "tests/CMakeFiles/vtick_tests.dir/test_core.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/test_core.cpp.o.d"
  "/work/main/tests/test_guest.cpp" "tests/CMakeFiles/vtick_tests.dir/test_guest.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/test_guest.cpp.o.d"
  "/work/main/tests/test_host.cpp" "tests/CMakeFiles/vtick_tests.dir/test_host.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/test_host.cpp.o.d"
  "/work/main/tests/test_hrtimer.cpp" "tests/CMakeFiles/vtick_tests.dir/test_hrtimer.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/test_hrtimer.cpp.o.d"
  "/work/main/tests/test_kvm_halt.cpp" "tests/CMakeFiles/vtick_tests.dir/test_kvm_halt.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/test_kvm_halt.cpp.o.d"
  "/work/main/tests/test_platform.cpp" "tests/CMakeFiles/vtick_tests.dir/test_platform.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/test_platform.cpp.o.d"
  "/work/main/tests/test_scenarios.cpp" "tests/CMakeFiles/vtick_tests.dir/test_scenarios.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/test_scenarios.cpp.o.d"
  "/work/main/tests/test_sched.cpp" "tests/CMakeFiles/vtick_tests.dir/test_sched.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/test_sched.cpp.o.d"
  "/work/main/tests/test_sim.cpp" "tests/CMakeFiles/vtick_tests.dir/test_sim.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/test_sim.cpp.o.d"
  "/work/main/tests/test_sweep.cpp" "tests/CMakeFiles/vtick_tests.dir/test_sweep.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/test_sweep.cpp.o.d"
  "/work/main/tests/test_tick.cpp" "tests/CMakeFiles/vtick_tests.dir/test_tick.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/test_tick.cpp.o.d"
  "/work/main/tests/test_trace.cpp" "tests/CMakeFiles/vtick_tests.dir/test_trace.cpp.o" "gcc" "tests/CMakeFiles/vtick_tests.dir/test_trace.cpp.o.d"
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
