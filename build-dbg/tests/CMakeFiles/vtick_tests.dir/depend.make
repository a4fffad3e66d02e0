# Empty dependencies file for vtick_tests.
# This may be replaced when dependencies are built.
