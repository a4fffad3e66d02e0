perf bench sched pipe -l 50000
