sysbench threads --threads=2 --thread-locks=1 --time=2 run
