taskset -c 0 perf bench sched pipe -l 200000
