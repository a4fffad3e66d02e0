sysbench threads --threads=2 --thread-locks=8 --time=10 run
