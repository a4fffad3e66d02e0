# Empty compiler generated dependencies file for vtick.
# This may be replaced when dependencies are built.
