/* vtick-probe: the environment section of the profile (what vtick calibrate builds the
 * shape from): kernel, command line, config, topology, cpuidle, clocks, KVM features. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <asm/kvm_para.h>
#include <cpuid.h>
#endif

#include "probe.h"

static void file_field(struct jw* w, const char* key, const char* path) {
  char b[4096];
  if (read_text(path, b, sizeof b) == 0) jw_str(w, key, b);
  else jw_null(w, key);
}

/* CONFIG_* options that decide the tick and idle paths, from /proc/config.gz or /boot. */
static void config(struct jw* w) {
  static const char* keys[] = {"CONFIG_HZ", "CONFIG_NO_HZ_IDLE", "CONFIG_NO_HZ_FULL", "CONFIG_HZ_PERIODIC",
                               "CONFIG_HIGH_RES_TIMERS", "CONFIG_VIRT_CPU_ACCOUNTING_GEN",
                               "CONFIG_IRQ_TIME_ACCOUNTING", "CONFIG_HALTPOLL_CPUIDLE", "CONFIG_CPU_IDLE_GOV_HALTPOLL",
                               "CONFIG_PREEMPT_NONE", "CONFIG_PREEMPT_VOLUNTARY", "CONFIG_PREEMPT",
                               "CONFIG_PREEMPT_LAZY", "CONFIG_PREEMPT_DYNAMIC", "CONFIG_PARAVIRT_SPINLOCKS",
                               "CONFIG_KVM_GUEST"};
  enum { NKEYS = sizeof keys / sizeof keys[0] };
  char* val[NKEYS] = {0};
  struct utsname u;
  uname(&u);
  char path[512];
  snprintf(path, sizeof path, "/boot/config-%s", u.release);
  FILE* f = NULL;
  const char* source = NULL;
  if (access("/proc/config.gz", R_OK) == 0 && (f = popen("zcat /proc/config.gz 2>/dev/null", "r")))
    source = "/proc/config.gz";
  else if ((f = fopen(path, "r")))
    source = path;
  int from_pipe = source && strcmp(source, "/proc/config.gz") == 0;
  int lines = 0;
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f)) {
      ++lines;
      for (int i = 0; i < NKEYS; ++i) {
        size_t n = strlen(keys[i]);
        if (strncmp(line, keys[i], n) == 0 && line[n] == '=') {
          char* v = line + n + 1;
          v[strcspn(v, "\n")] = 0;
          if (v[0] == '"') { ++v; v[strcspn(v, "\"")] = 0; }
          free(val[i]);
          val[i] = strdup(v);
        }
      }
    }
    if (from_pipe) pclose(f);
    else fclose(f);
  }
  jw_obj(w, "config");
  jw_str(w, "source", lines ? source : NULL);
  for (int i = 0; i < NKEYS; ++i) {
    if (lines) jw_str(w, keys[i], val[i] ? val[i] : "n"); /* absent from a config: not set */
    else jw_null(w, keys[i]);
    free(val[i]);
  }
  jw_end_obj(w);
}

static void topology(struct jw* w) {
  jw_arr(w, "cpus");
  long n = sysconf(_SC_NPROCESSORS_CONF);
  for (long c = 0; c < n && c < 4096; ++c) {
    char p[256];
    snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%ld/topology/core_id", c);
    long long core = read_ll(p, -1);
    if (core < 0) continue;
    snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%ld/online", c);
    long long online = read_ll(p, 1); /* cpu0 often has no online file */
    jw_obj(w, NULL);
    jw_int(w, "cpu", c);
    jw_bool(w, "online", online == 1);
    jw_int(w, "core_id", core);
    snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%ld/topology/physical_package_id", c);
    jw_int(w, "package_id", read_ll(p, -1));
    snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%ld/topology/thread_siblings_list", c);
    file_field(w, "thread_siblings", p);
    jw_end_obj(w);
  }
  jw_end_arr(w);
}

static void cpuidle(struct jw* w, int cpu) {
  jw_obj(w, "cpuidle");
  file_field(w, "driver", "/sys/devices/system/cpu/cpuidle/current_driver");
  char gov[128];
  if (read_text("/sys/devices/system/cpu/cpuidle/current_governor", gov, sizeof gov) == 0 ||
      read_text("/sys/devices/system/cpu/cpuidle/current_governor_ro", gov, sizeof gov) == 0)
    jw_str(w, "governor", gov);
  else
    jw_null(w, "governor");
  jw_arr(w, "states");
  for (int s = 0; s < 16; ++s) {
    char p[256], name[128];
    snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", cpu, s);
    if (read_text(p, name, sizeof name) != 0) break;
    jw_obj(w, NULL);
    jw_str(w, "name", name);
    snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/latency", cpu, s);
    jw_int(w, "latency_us", read_ll(p, -1));
    snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/residency", cpu, s);
    jw_int(w, "residency_us", read_ll(p, -1));
    snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/disable", cpu, s);
    jw_bool(w, "disabled", read_ll(p, 0) != 0);
    jw_end_obj(w);
  }
  jw_end_arr(w);
  jw_obj(w, "haltpoll");
  static const char* params[] = {"guest_halt_poll_ns", "guest_halt_poll_grow", "guest_halt_poll_grow_start",
                                 "guest_halt_poll_shrink", "guest_halt_poll_allow_shrink"};
  for (size_t i = 0; i < sizeof params / sizeof params[0]; ++i) {
    char p[256];
    snprintf(p, sizeof p, "/sys/module/haltpoll/parameters/%s", params[i]);
    file_field(w, params[i], p);
  }
  jw_end_obj(w);
  jw_end_obj(w);
}

static void cpu_model(struct jw* w) {
  jw_obj(w, "cpu_model");
  FILE* f = fopen("/proc/cpuinfo", "r");
  char line[4096], name[256] = "", vendor[64] = "";
  long family = -1, model = -1, stepping = -1;
  int deadline = 0, x2apic = 0;
  while (f && fgets(line, sizeof line, f)) {
    char* colon = strchr(line, ':');
    if (!colon) {
      if (name[0] || vendor[0]) break; /* the first CPU's block is enough */
      continue;
    }
    char* v = colon + 1 + (colon[1] == ' ');
    v[strcspn(v, "\n")] = 0;
    if (!strncmp(line, "model name", 10) || !strncmp(line, "CPU part", 8)) snprintf(name, sizeof name, "%s", v);
    else if (!strncmp(line, "vendor_id", 9) || !strncmp(line, "CPU implementer", 15)) snprintf(vendor, sizeof vendor, "%s", v);
    else if (!strncmp(line, "cpu family", 10)) family = strtol(v, NULL, 0);
    else if (!strncmp(line, "model\t", 6)) model = strtol(v, NULL, 0);
    else if (!strncmp(line, "stepping", 8)) stepping = strtol(v, NULL, 0);
    else if (!strncmp(line, "flags", 5) || !strncmp(line, "Features", 8)) {
      deadline = strstr(v, "tsc_deadline_timer") != NULL;
      x2apic = strstr(v, "x2apic") != NULL;
    }
  }
  if (f) fclose(f);
  jw_str(w, "name", name[0] ? name : NULL);
  jw_str(w, "vendor", vendor[0] ? vendor : NULL);
  jw_int(w, "family", family);
  jw_int(w, "model", model);
  jw_int(w, "stepping", stepping);
  jw_bool(w, "tsc_deadline_timer", deadline);
  jw_bool(w, "x2apic", x2apic);
  jw_end_obj(w);
}

/* KVM's paravirtual features as CPUID leaf 0x40000001 advertises them (x86 only). */
static void hypervisor(struct jw* w) {
  jw_obj(w, "hypervisor");
  char sysfs[64];
  if (read_text("/sys/hypervisor/type", sysfs, sizeof sysfs) == 0) jw_str(w, "sysfs_type", sysfs);
  else jw_null(w, "sysfs_type");
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  __cpuid(1, a, b, c, d);
  int present = (c >> 31) & 1;
  jw_bool(w, "cpuid_hypervisor_bit", present);
  char sig[13] = "";
  if (present) {
    __cpuid(0x40000000, a, b, c, d);
    memcpy(sig, &b, 4);
    memcpy(sig + 4, &c, 4);
    memcpy(sig + 8, &d, 4);
    sig[12] = 0;
  }
  jw_str(w, "signature", sig[0] ? sig : NULL);
  if (!strcmp(sig, "KVMKVMKVM")) {
    __cpuid(0x40000001, a, b, c, d);
    jw_obj(w, "kvm_features");
    jw_bool(w, "steal_time", (a >> KVM_FEATURE_STEAL_TIME) & 1);
    jw_bool(w, "pv_eoi", (a >> KVM_FEATURE_PV_EOI) & 1);
    jw_bool(w, "pv_unhalt", (a >> KVM_FEATURE_PV_UNHALT) & 1);
    jw_bool(w, "pv_tlb_flush", (a >> KVM_FEATURE_PV_TLB_FLUSH) & 1);
    jw_bool(w, "pv_send_ipi", (a >> KVM_FEATURE_PV_SEND_IPI) & 1);
    jw_bool(w, "poll_control", (a >> KVM_FEATURE_POLL_CONTROL) & 1);
    jw_bool(w, "pv_sched_yield", (a >> KVM_FEATURE_PV_SCHED_YIELD) & 1);
    jw_bool(w, "hints_realtime", (d >> KVM_HINTS_REALTIME) & 1);
    jw_end_obj(w);
  }
#else
  jw_null(w, "signature");
#endif
  jw_end_obj(w);
}

void probe_environment(struct jw* w, const struct probe_opts* o) {
  struct utsname u;
  uname(&u);
  jw_obj(w, "environment");
  jw_str(w, "arch", u.machine);
  jw_str(w, "kernel", u.release);
  jw_str(w, "kernel_version", u.version);
  file_field(w, "cmdline", "/proc/cmdline");
  cpu_model(w);
  hypervisor(w);
  config(w);
  jw_int(w, "online_cpus", sysconf(_SC_NPROCESSORS_ONLN));
  file_field(w, "nohz_full", "/sys/devices/system/cpu/nohz_full");
  topology(w);
  cpuidle(w, o->cpu_a);
  file_field(w, "clocksource", "/sys/devices/system/clocksource/clocksource0/current_clocksource");
  file_field(w, "clockevent", "/sys/devices/system/clockevents/clockevent0/current_device");
  jw_int(w, "timer_slack_ns", prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
  jw_int(w, "user_hz", sysconf(_SC_CLK_TCK));
  jw_obj(w, "vulnerabilities");
  static const char* vulns[] = {"mds", "l1tf", "spectre_v2", "retbleed", "spec_rstack_overflow", "gather_data_sampling"};
  for (size_t i = 0; i < sizeof vulns / sizeof vulns[0]; ++i) {
    char p[256];
    snprintf(p, sizeof p, "/sys/devices/system/cpu/vulnerabilities/%s", vulns[i]);
    file_field(w, vulns[i], p);
  }
  jw_end_obj(w);
  jw_int(w, "cpu_a", o->cpu_a);
  jw_int(w, "cpu_b", o->cpu_b);
  jw_end_obj(w);
}
