# Empty compiler generated dependencies file for vtick_guest.
# This may be replaced when dependencies are built.
