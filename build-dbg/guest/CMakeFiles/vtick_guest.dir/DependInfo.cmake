
# Consider dependencies only in project.
set(CMAKE_DEPENDS_IN_PROJECT_ONLY OFF)

# The set of languages for which implicit dependencies are needed:
set(CMAKE_DEPENDS_LANGUAGES
  )

# The set of dependency files which are needed:
set(CMAKE_DEPENDS_DEPENDENCY_FILES
  "/work/main/guest/cpu.cpp" "guest/CMakeFiles/vtick_guest.dir/cpu.cpp.o" "gcc" "guest/CMakeFiles/vtick_guest.dir/cpu.cpp.o.d"
  "/work/main/guest/cpuidle.cpp" "guest/CMakeFiles/vtick_guest.dir/cpuidle.cpp.o" "gcc" "guest/CMakeFiles/vtick_guest.dir/cpuidle.cpp.o.d"
  "/work/main/guest/cputime.cpp" "guest/CMakeFiles/vtick_guest.dir/cputime.cpp.o" "gcc" "guest/CMakeFiles/vtick_guest.dir/cputime.cpp.o.d"
  "/work/main/guest/hrtimer.cpp" "guest/CMakeFiles/vtick_guest.dir/hrtimer.cpp.o" "gcc" "guest/CMakeFiles/vtick_guest.dir/hrtimer.cpp.o.d"
  "/work/main/guest/idle.cpp" "guest/CMakeFiles/vtick_guest.dir/idle.cpp.o" "gcc" "guest/CMakeFiles/vtick_guest.dir/idle.cpp.o.d"
  "/work/main/guest/kernel.cpp" "guest/CMakeFiles/vtick_guest.dir/kernel.cpp.o" "gcc" "guest/CMakeFiles/vtick_guest.dir/kernel.cpp.o.d"
  "/work/main/guest/params.cpp" "guest/CMakeFiles/vtick_guest.dir/params.cpp.o" "gcc" "guest/CMakeFiles/vtick_guest.dir/params.cpp.o.d"
  "/work/main/guest/sched.cpp" "guest/CMakeFiles/vtick_guest.dir/sched.cpp.o" "gcc" "guest/CMakeFiles/vtick_guest.dir/sched.cpp.o.d"
  "/work/main/guest/task_exec.cpp" "guest/CMakeFiles/vtick_guest.dir/task_exec.cpp.o" "gcc" "guest/CMakeFiles/vtick_guest.dir/task_exec.cpp.o.d"
  "/work/main/guest/tick_policy.cpp" "guest/CMakeFiles/vtick_guest.dir/tick_policy.cpp.o" "gcc" "guest/CMakeFiles/vtick_guest.dir/tick_policy.cpp.o.d"
  "/work/main/guest/tick_sched.cpp" "guest/CMakeFiles/vtick_guest.dir/tick_sched.cpp.o" "gcc" "guest/CMakeFiles/vtick_guest.dir/tick_sched.cpp.o.d"
  "/work/main/guest/timer_wheel.cpp" "guest/CMakeFiles/vtick_guest.dir/timer_wheel.cpp.o" "gcc" "guest/CMakeFiles/vtick_guest.dir/timer_wheel.cpp.o.d"
  "/work/main/guest/workloads.cpp" "guest/CMakeFiles/vtick_guest.dir/workloads.cpp.o" "gcc" "guest/CMakeFiles/vtick_guest.dir/workloads.cpp.o.d"
  )

# Targets to which this target links.
set(CMAKE_TARGET_LINKED_INFO_FILES
  "/work/main/build-dbg/platform/CMakeFiles/vtick_platform.dir/DependInfo.cmake"
  "/work/main/build-dbg/core/CMakeFiles/vtick_core.dir/DependInfo.cmake"
  )

# Fortran module output directory.
set(CMAKE_Fortran_TARGET_MODULE_DIR "")
