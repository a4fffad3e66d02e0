sysbench threads --threads=4 --thread-locks=8 --time=2 run
