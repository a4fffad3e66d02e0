/* vtick-probe: a streaming JSON writer for the profile (no dependency beyond libc). */
#include <math.h>
#include <string.h>

#include "probe.h"

void jw_init(struct jw* w, FILE* f) {
  memset(w, 0, sizeof *w);
  w->f = f;
  w->first[0] = 1;
}

static void indent(struct jw* w) {
  fputc('\n', w->f);
  for (int i = 0; i < w->depth; ++i) fputs("  ", w->f);
}

static void put_string(FILE* f, const char* s) {
  fputc('"', f);
  for (const unsigned char* p = (const unsigned char*)s; *p; ++p) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p == '\n') fputs("\\n", f);
    else if (*p == '\t') fputs("\\t", f);
    else if (*p < 0x20 || *p == 0x7f) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

static void key(struct jw* w, const char* k) {
  if (!w->first[w->depth]) fputc(',', w->f);
  w->first[w->depth] = 0;
  if (w->depth > 0) indent(w);
  if (k) {
    put_string(w->f, k);
    fputs(": ", w->f);
  }
}

static void open_(struct jw* w, const char* k, char c) {
  key(w, k);
  fputc(c, w->f);
  if (w->depth < 31) ++w->depth;
  w->first[w->depth] = 1;
}

static void close_(struct jw* w, char c) {
  int empty = w->first[w->depth];
  if (w->depth > 0) --w->depth;
  if (!empty) indent(w);
  fputc(c, w->f);
  if (w->depth == 0) fputc('\n', w->f);
}

void jw_obj(struct jw* w, const char* k) { open_(w, k, '{'); }
void jw_arr(struct jw* w, const char* k) { open_(w, k, '['); }
void jw_end_obj(struct jw* w) { close_(w, '}'); }
void jw_end_arr(struct jw* w) { close_(w, ']'); }

void jw_str(struct jw* w, const char* k, const char* v) {
  key(w, k);
  if (v) put_string(w->f, v);
  else fputs("null", w->f);
}

void jw_num(struct jw* w, const char* k, double v) {
  key(w, k);
  if (isfinite(v)) fprintf(w->f, "%.6g", v);
  else fputs("null", w->f);
}

void jw_int(struct jw* w, const char* k, long long v) {
  key(w, k);
  fprintf(w->f, "%lld", v);
}

void jw_bool(struct jw* w, const char* k, int v) {
  key(w, k);
  fputs(v ? "true" : "false", w->f);
}

void jw_null(struct jw* w, const char* k) {
  key(w, k);
  fputs("null", w->f);
}

void jw_stats(struct jw* w, const char* k, struct samples* s, const char* unit) {
  jw_obj(w, k);
  jw_str(w, "unit", unit);
  jw_int(w, "n", (long long)s->n);
  jw_num(w, "min", samples_pct(s, 0));
  jw_num(w, "p10", samples_pct(s, 10));
  jw_num(w, "p50", samples_pct(s, 50));
  jw_num(w, "p90", samples_pct(s, 90));
  jw_num(w, "p99", samples_pct(s, 99));
  jw_num(w, "max", samples_pct(s, 100));
  double sum = 0;
  for (size_t i = 0; i < s->n; ++i) sum += s->v[i];
  jw_num(w, "mean", s->n ? sum / (double)s->n : NAN);
  jw_end_obj(w);
}
