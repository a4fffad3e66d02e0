sysbench threads --threads=2 --thread-locks=8 --time=2 run
