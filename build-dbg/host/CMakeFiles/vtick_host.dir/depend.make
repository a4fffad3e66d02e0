# Empty dependencies file for vtick_host.
# This may be replaced when dependencies are built.
