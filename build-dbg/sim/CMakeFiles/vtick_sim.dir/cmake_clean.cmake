file(REMOVE_RECURSE
  "CMakeFiles/vtick_sim.dir/docs.cpp.o"
  "CMakeFiles/vtick_sim.dir/docs.cpp.o.d"
  "CMakeFiles/vtick_sim.dir/fork_pool.cpp.o"
  "CMakeFiles/vtick_sim.dir/fork_pool.cpp.o.d"
  "CMakeFiles/vtick_sim.dir/metrics.cpp.o"
  "CMakeFiles/vtick_sim.dir/metrics.cpp.o.d"
  "CMakeFiles/vtick_sim.dir/results.cpp.o"
  "CMakeFiles/vtick_sim.dir/results.cpp.o.d"
  "CMakeFiles/vtick_sim.dir/scenario.cpp.o"
  "CMakeFiles/vtick_sim.dir/scenario.cpp.o.d"
  "CMakeFiles/vtick_sim.dir/simulation.cpp.o"
  "CMakeFiles/vtick_sim.dir/simulation.cpp.o.d"
  "CMakeFiles/vtick_sim.dir/stats.cpp.o"
  "CMakeFiles/vtick_sim.dir/stats.cpp.o.d"
  "CMakeFiles/vtick_sim.dir/sweep.cpp.o"
  "CMakeFiles/vtick_sim.dir/sweep.cpp.o.d"
  "CMakeFiles/vtick_sim.dir/trace_format.cpp.o"
  "CMakeFiles/vtick_sim.dir/trace_format.cpp.o.d"
  "CMakeFiles/vtick_sim.dir/trace_writer.cpp.o"
  "CMakeFiles/vtick_sim.dir/trace_writer.cpp.o.d"
  "libvtick_sim.a"
  "libvtick_sim.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/vtick_sim.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
