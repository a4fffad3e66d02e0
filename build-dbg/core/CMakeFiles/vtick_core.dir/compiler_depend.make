# Empty compiler generated dependencies file for vtick_core.
# This may be replaced when dependencies are built.
