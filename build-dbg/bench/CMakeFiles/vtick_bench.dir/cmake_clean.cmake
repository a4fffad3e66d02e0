file(REMOVE_RECURSE
  "CMakeFiles/vtick_bench.dir/vtick_bench.cpp.o"
  "CMakeFiles/vtick_bench.dir/vtick_bench.cpp.o.d"
  "vtick_bench"
  "vtick_bench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang CXX)
  include(CMakeFiles/vtick_bench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
