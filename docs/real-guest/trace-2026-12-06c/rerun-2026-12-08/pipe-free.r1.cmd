perf bench sched pipe -l 200000
