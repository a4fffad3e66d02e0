hackbench -p -g 4 -l 2000
