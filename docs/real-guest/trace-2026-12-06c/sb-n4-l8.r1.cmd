sysbench threads --threads=4 --thread-locks=8 --time=10 run
