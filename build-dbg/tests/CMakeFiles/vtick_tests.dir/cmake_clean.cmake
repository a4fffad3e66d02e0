file(REMOVE_RECURSE
  "CMakeFiles/vtick_tests.dir/helpers.cpp.o"
  "CMakeFiles/vtick_tests.dir/helpers.cpp.o.d"
  "CMakeFiles/vtick_tests.dir/test_cli.cpp.o"
  "CMakeFiles/vtick_tests.dir/test_cli.cpp.o.d"
  "CMakeFiles/vtick_tests.dir/test_core.cpp.o"
  "CMakeFiles/vtick_tests.dir/test_core.cpp.o.d"
  "CMakeFiles/vtick_tests.dir/test_guest.cpp.o"
  "CMakeFiles/vtick_tests.dir/test_guest.cpp.o.d"
  "CMakeFiles/vtick_tests.dir/test_host.cpp.o"
  "CMakeFiles/vtick_tests.dir/test_host.cpp.o.d"
  "CMakeFiles/vtick_tests.dir/test_hrtimer.cpp.o"
  "CMakeFiles/vtick_tests.dir/test_hrtimer.cpp.o.d"
  "CMakeFiles/vtick_tests.dir/test_kvm_halt.cpp.o"
  "CMakeFiles/vtick_tests.dir/test_kvm_halt.cpp.o.d"
  "CMakeFiles/vtick_tests.dir/test_platform.cpp.o"
  "CMakeFiles/vtick_tests.dir/test_platform.cpp.o.d"
  "CMakeFiles/vtick_tests.dir/test_scenarios.cpp.o"
  "CMakeFiles/vtick_tests.dir/test_scenarios.cpp.o.d"
  "CMakeFiles/vtick_tests.dir/test_sched.cpp.o"
  "CMakeFiles/vtick_tests.dir/test_sched.cpp.o.d"
  "CMakeFiles/vtick_tests.dir/test_sim.cpp.o"
  "CMakeFiles/vtick_tests.dir/test_sim.cpp.o.d"
  "CMakeFiles/vtick_tests.dir/test_sweep.cpp.o"
  "CMakeFiles/vtick_tests.dir/test_sweep.cpp.o.d"
  "CMakeFiles/vtick_tests.dir/test_tick.cpp.o"
  "CMakeFiles/vtick_tests.dir/test_tick.cpp.o.d"
  "CMakeFiles/vtick_tests.dir/test_trace.cpp.o"
  "CMakeFiles/vtick_tests.dir/test_trace.cpp.o.d"
  "vtick_tests"
  "vtick_tests.pdb"
  "vtick_tests_tests-b12d07c.cmake"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/vtick_tests.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
