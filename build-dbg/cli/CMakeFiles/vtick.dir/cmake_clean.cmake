file(REMOVE_RECURSE
  "CMakeFiles/vtick.dir/compare.cpp.o"
  "CMakeFiles/vtick.dir/compare.cpp.o.d"
  "CMakeFiles/vtick.dir/main.cpp.o"
  "CMakeFiles/vtick.dir/main.cpp.o.d"
  "CMakeFiles/vtick.dir/plot.cpp.o"
  "CMakeFiles/vtick.dir/plot.cpp.o.d"
  "CMakeFiles/vtick.dir/run.cpp.o"
  "CMakeFiles/vtick.dir/run.cpp.o.d"
  "CMakeFiles/vtick.dir/sweep.cpp.o"
  "CMakeFiles/vtick.dir/sweep.cpp.o.d"
  "CMakeFiles/vtick.dir/sweep_tables.cpp.o"
  "CMakeFiles/vtick.dir/sweep_tables.cpp.o.d"
  "CMakeFiles/vtick.dir/timeline.cpp.o"
  "CMakeFiles/vtick.dir/timeline.cpp.o.d"
  "vtick"
  "vtick.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/vtick.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
