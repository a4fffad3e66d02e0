// Cross-vCPU request/response round trip, measured inside a guest (validation cases
// this-guest-rr-*). A client pinned to CPU 0 posts a request to a server pinned to CPU 1
// by futex and waits for its answer; GAP ns of clock_nanosleep between requests.
//   gcc -O2 -pthread validation/measure/rr.c -o rr && ./rr GAP_NS COUNT
// Prints the round trip's p50/p90/p99 over COUNT requests (after 100 unmeasured ones).
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>
static volatile int req, resp;
static long fwait(volatile int* a, int v){return syscall(SYS_futex,a,FUTEX_WAIT_PRIVATE,v,0,0,0);}
static long fwake(volatile int* a){return syscall(SYS_futex,a,FUTEX_WAKE_PRIVATE,1,0,0,0);}
static double ns(){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1e9+t.tv_nsec;}
static void pin(int c){cpu_set_t s; CPU_ZERO(&s); CPU_SET(c,&s); pthread_setaffinity_np(pthread_self(),sizeof s,&s);}
static void* server(void* x){pin(1); int seen=0; for(;;){ while(req==seen) fwait(&req,seen); seen=req; resp=seen; fwake(&resp);} }
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b; return x<y?-1:x>y;}
int main(int argc,char**argv){ long gap=atol(argv[1]); int n=atoi(argv[2]); pthread_t t; pthread_create(&t,0,server,0); pin(0);
 double* v=malloc(n*sizeof(double)); struct timespec g={gap/1000000000, gap%1000000000};
 for(int i=-100;i<n;i++){ if(gap) clock_nanosleep(CLOCK_MONOTONIC,0,&g,0); double t0=ns(); int r=++req; fwake(&req); int cur; while((cur=resp)!=r) fwait(&resp,cur); if(i>=0) v[i]=(ns()-t0)/1000; }
 qsort(v,n,sizeof(double),cmp); printf("gap %ld ns: round trip p50 %.1f us p90 %.1f p99 %.1f (n=%d)\n",gap,v[n/2],v[n*9/10],v[n*99/100],n); return 0;}
