# Empty dependencies file for vtick_bench.
# This may be replaced when dependencies are built.
