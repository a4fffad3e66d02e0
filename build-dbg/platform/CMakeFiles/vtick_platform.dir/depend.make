# Empty dependencies file for vtick_platform.
# This may be replaced when dependencies are built.
