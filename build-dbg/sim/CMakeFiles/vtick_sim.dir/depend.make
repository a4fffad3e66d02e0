# Empty dependencies file for vtick_sim.
# This may be replaced when dependencies are built.
