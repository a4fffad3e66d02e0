file(REMOVE_RECURSE
  "CMakeFiles/vtick_guest.dir/cpu.cpp.o"
  "CMakeFiles/vtick_guest.dir/cpu.cpp.o.d"
  "CMakeFiles/vtick_guest.dir/cpuidle.cpp.o"
  "CMakeFiles/vtick_guest.dir/cpuidle.cpp.o.d"
  "CMakeFiles/vtick_guest.dir/cputime.cpp.o"
  "CMakeFiles/vtick_guest.dir/cputime.cpp.o.d"
  "CMakeFiles/vtick_guest.dir/hrtimer.cpp.o"
  "CMakeFiles/vtick_guest.dir/hrtimer.cpp.o.d"
  "CMakeFiles/vtick_guest.dir/idle.cpp.o"
  "CMakeFiles/vtick_guest.dir/idle.cpp.o.d"
  "CMakeFiles/vtick_guest.dir/kernel.cpp.o"
  "CMakeFiles/vtick_guest.dir/kernel.cpp.o.d"
  "CMakeFiles/vtick_guest.dir/params.cpp.o"
  "CMakeFiles/vtick_guest.dir/params.cpp.o.d"
  "CMakeFiles/vtick_guest.dir/sched.cpp.o"
  "CMakeFiles/vtick_guest.dir/sched.cpp.o.d"
  "CMakeFiles/vtick_guest.dir/task_exec.cpp.o"
  "CMakeFiles/vtick_guest.dir/task_exec.cpp.o.d"
  "CMakeFiles/vtick_guest.dir/tick_policy.cpp.o"
  "CMakeFiles/vtick_guest.dir/tick_policy.cpp.o.d"
  "CMakeFiles/vtick_guest.dir/tick_sched.cpp.o"
  "CMakeFiles/vtick_guest.dir/tick_sched.cpp.o.d"
  "CMakeFiles/vtick_guest.dir/timer_wheel.cpp.o"
  "CMakeFiles/vtick_guest.dir/timer_wheel.cpp.o.d"
  "CMakeFiles/vtick_guest.dir/workloads.cpp.o"
  "CMakeFiles/vtick_guest.dir/workloads.cpp.o.d"
  "libvtick_guest.a"
  "libvtick_guest.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/vtick_guest.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
