// vtick calibrate's search (calibrate_fit.hpp): every point is a full set of figures, so
// the search is frugal: the figures are staircases in the discrete choices (a poll window
// or a C-state crossing a gap), which a simplex cannot climb, and smooth in the costs.
#include "study/calibrate_fit.hpp"

#include <nlopt.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

namespace vtick {

double FitParam::to_x(double u) const {
  u = std::clamp(u, 0.0, 1.0);
  if (discrete()) return std::min(static_cast<double>(levels.size() - 1), std::floor(u * static_cast<double>(levels.size())));
  return log ? lo * std::pow(hi / lo, u) : lo + (hi - lo) * u;
}

double FitParam::to_u(double x) const {
  if (discrete()) return (x + 0.5) / static_cast<double>(levels.size());
  return log ? std::log(x / lo) / std::log(hi / lo) : (x - lo) / (hi - lo);
}

std::string FitParam::set_text(double x) const {
  if (discrete()) return key + "=" + levels[static_cast<size_t>(x)];
  return key + "=" + std::to_string(std::llround(x)) + (duration ? "ns" : "");
}

std::string FitParam::value_text(double x) const {
  if (discrete()) return level_text[static_cast<size_t>(x)];
  return std::to_string(std::llround(x));
}

namespace {

// Gauss-Jordan inverse of a small symmetric matrix; false if singular.
bool invert(std::vector<std::vector<double>>& a) {
  size_t n = a.size();
  std::vector<std::vector<double>> inv(n, std::vector<double>(n, 0));
  for (size_t i = 0; i < n; ++i) inv[i][i] = 1;
  for (size_t c = 0; c < n; ++c) {
    size_t piv = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c])) piv = r;
    if (std::fabs(a[piv][c]) < 1e-12) return false;
    std::swap(a[c], a[piv]);
    std::swap(inv[c], inv[piv]);
    double d = a[c][c];
    for (size_t k = 0; k < n; ++k) a[c][k] /= d, inv[c][k] /= d;
    for (size_t r = 0; r < n; ++r)
      if (r != c) {
        double f = a[r][c];
        for (size_t k = 0; k < n; ++k) a[r][k] -= f * a[c][k], inv[r][k] -= f * inv[c][k];
      }
  }
  a = inv;
  return true;
}

struct Search {
  const FitObjective& ob;
  std::vector<size_t> cont, disc;  // the indices of the continuous and the discrete parameters
  std::vector<std::pair<double, std::vector<double>>> seen;  // every point evaluated (u)
  double best_seen = INFINITY;

  std::vector<double> to_x(const std::vector<double>& u) const {
    std::vector<double> x(u.size());
    for (size_t i = 0; i < u.size(); ++i) x[i] = ob.params[i].to_x(u[i]);
    return x;
  }
  double chi2_at(const std::vector<double>& u) {
    double c = 0;
    for (double r : ob.residuals(to_x(u))) c += r * r;
    seen.push_back({c, u});
    best_seen = std::min(best_seen, c);
    int n = ob.evaluations();
    if (!ob.quiet && (isatty(2) || n % 10 == 0))
      std::fprintf(stderr, isatty(2) ? "\rvtick calibrate: evaluation %d, chi2 %.1f (best %.1f)   "
                                     : "vtick calibrate: evaluation %d, chi2 %.1f (best %.1f)\n",
                   n, c, best_seen);
    return c;
  }
  std::vector<double> at_level(std::vector<double> u, size_t d, size_t level) const {
    u[d] = ob.params[d].to_u(static_cast<double>(level));
    return u;
  }

  // BOBYQA (a quadratic model of chi2, frugal in evaluations) over the continuous
  // parameters, the discrete ones held; u is moved to the best point.
  double local(std::vector<double>& u, double f0, int maxeval) {
    if (cont.empty() || maxeval < 2 * static_cast<int>(cont.size()) + 2) return f0;
    std::vector<double> v;
    for (size_t j : cont) v.push_back(u[j]);
    std::vector<double> base = u;
    std::function<double(const std::vector<double>&)> f = [&](const std::vector<double>& w) {
      std::vector<double> full = base;
      for (size_t a = 0; a < cont.size(); ++a) full[cont[a]] = w[a];
      return chi2_at(full);
    };
    // (BOBYQA's model needs two dimensions: one cost alone goes to Sbplx)
    nlopt::opt opt(cont.size() > 1 ? nlopt::LN_BOBYQA : nlopt::LN_SBPLX, static_cast<unsigned>(cont.size()));
    opt.set_lower_bounds(std::vector<double>(cont.size(), 0.0));
    opt.set_upper_bounds(std::vector<double>(cont.size(), 1.0));
    opt.set_maxeval(maxeval);
    opt.set_xtol_abs(0.0005);
    opt.set_initial_step(std::vector<double>(cont.size(), 0.1));
    opt.set_min_objective(
        [](unsigned n, const double* w, double*, void* data) {
          return (*static_cast<std::function<double(const std::vector<double>&)>*>(data))(std::vector<double>(w, w + n));
        },
        &f);
    double minf = INFINITY;
    try {
      opt.optimize(v, minf);
    } catch (const std::exception& e) {  // a stop at the evaluation limit or a roundoff limit keeps the point
      spdlog::debug("nlopt: {}", e.what());
    }
    std::vector<double> full = base;
    for (size_t a = 0; a < cont.size(); ++a) full[cont[a]] = v[a];
    double c = chi2_at(full);  // cached: the point BOBYQA ended on
    if (c < f0) {
      u = full;
      return c;
    }
    return f0;
  }

  // Each discrete parameter in turn at each of its levels, the rest held; moves to the best.
  bool sweep(std::vector<double>& u, double& f) {
    bool moved = false;
    for (size_t d : disc)
      for (size_t l = 0; l < ob.params[d].levels.size(); ++l) {
        auto w = at_level(u, d, l);
        double c = chi2_at(w);
        if (c < f - 1e-9) u = w, f = c, moved = true;
      }
    return moved;
  }
};

}  // namespace

FitResult fit(const FitObjective& ob, int max_evals) {
  Search s{ob, {}, {}, {}, INFINITY};
  size_t k = ob.params.size();
  size_t max_levels = 1;
  for (size_t i = 0; i < k; ++i) {
    (ob.params[i].discrete() ? s.disc : s.cont).push_back(i);
    max_levels = std::max(max_levels, ob.params[i].levels.size());
  }
  auto left = [&] { return max_evals - ob.evaluations(); };
  // 1. a space-filling start: the defaults and a Latin hypercube of 6 points per cost
  //    (each level of a choice at least twice), a third of the evaluations at most; seeded,
  //    so the same profile gives the same fit
  std::vector<std::pair<double, std::vector<double>>> starts;
  std::vector<double> u0(k);
  for (size_t i = 0; i < k; ++i) u0[i] = std::clamp(ob.params[i].to_u(ob.params[i].dflt), 0.0, 1.0);
  starts.push_back({s.chi2_at(u0), u0});
  int n_lhs = std::min(std::max<int>(static_cast<int>(6 * s.cont.size()), static_cast<int>(2 * max_levels)), max_evals / 4);
  std::mt19937_64 gen(1);
  auto unit = [&] { return static_cast<double>(gen() >> 11) * 0x1.0p-53; };
  std::vector<std::vector<int>> perm(k);
  for (auto& pm : perm) {
    for (int i = 0; i < n_lhs; ++i) pm.push_back(i);
    for (int i = n_lhs - 1; i > 0; --i) std::swap(pm[static_cast<size_t>(i)], pm[static_cast<size_t>(gen() % static_cast<unsigned>(i + 1))]);
  }
  for (int p = 0; p < n_lhs; ++p) {
    std::vector<double> u(k);
    for (size_t i = 0; i < k; ++i) u[i] = (perm[i][static_cast<size_t>(p)] + unit()) / n_lhs;
    for (size_t d : s.disc)  // each level as often as the others (strata of the permutation)
      u[d] = ob.params[d].to_u(static_cast<double>(static_cast<size_t>(perm[d][static_cast<size_t>(p)]) % ob.params[d].levels.size()));
    starts.push_back({s.chi2_at(u), u});
  }
  std::sort(starts.begin(), starts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // 2. from the two best starts: the choices swept, then BOBYQA on the costs and the
  //    choices again while a sweep moves (three rounds at most), until 70 % of the
  //    evaluations; the rest re-fit the runner-up of each choice (3.)
  std::vector<double> best_u = starts[0].second;
  double best = starts[0].first;
  const size_t n_local = std::min<size_t>(2, starts.size());
  const int local_end = max_evals * 7 / 10;
  for (size_t st = 0; st < n_local; ++st) {
    int until = ob.evaluations() + (local_end - ob.evaluations()) / static_cast<int>(n_local - st);
    std::vector<double> u = starts[st].second;
    double f = starts[st].first;
    // the choices first: a cost fitted at the wrong stair is fitted to the wrong figures
    bool moved = s.sweep(u, f);
    for (int round = 0; round < 3 && ob.evaluations() < until && (round == 0 || moved); ++round) {
      f = s.local(u, f, (until - ob.evaluations()) * 2 / 3);
      moved = s.sweep(u, f);
    }
    if (f < best) best = f, best_u = u;
  }
  FitResult fr;
  fr.x = s.to_x(best_u);
  auto r0 = ob.residuals(fr.x);
  fr.chi2 = 0;
  for (double r : r0) fr.chi2 += r * r;
  fr.n = static_cast<int>(r0.size());
  // 3. a choice's uncertainty: its levels with the costs at the best point, and the
  //    runner-up re-fitted (a level may need other costs); a better runner-up becomes the best
  fr.level_chi2.assign(k, {});
  fr.runner_up.assign(k, -1);
  fr.delta_chi2.assign(k, NAN);
  // a choice's levels with the costs at the best point, and the best of the others
  auto levels_at = [&](size_t d, std::vector<double>& lc) {
    lc.assign(ob.params[d].levels.size(), 0);
    for (size_t l = 0; l < lc.size(); ++l) lc[l] = s.chi2_at(s.at_level(best_u, d, l));
    size_t cur = static_cast<size_t>(fr.x[d]);
    int ru = -1;
    for (size_t l = 0; l < lc.size(); ++l)
      if (l != cur && (ru < 0 || lc[l] < lc[static_cast<size_t>(ru)])) ru = static_cast<int>(l);
    return ru;
  };
  bool settled = s.disc.empty();
  for (int pass = 0; pass < 3 && !settled; ++pass) {
    settled = true;
    for (size_t d : s.disc) {
      std::vector<double> lc;
      int ru = levels_at(d, lc);
      if (ru >= 0) {
        auto w = s.at_level(best_u, d, static_cast<size_t>(ru));
        int budget = std::max(0, left()) / static_cast<int>(s.disc.size());
        lc[static_cast<size_t>(ru)] = s.local(w, lc[static_cast<size_t>(ru)], budget);
        if (lc[static_cast<size_t>(ru)] < best - 1e-9) {
          best = lc[static_cast<size_t>(ru)], best_u = w, fr.x = s.to_x(w), settled = false;
          break;
        }
      }
      fr.level_chi2[d] = lc;
      fr.runner_up[d] = ru;
    }
  }
  // the last pass moved the best point: every choice's levels with the costs held, and no
  // claim (a runner-up not re-fitted at the final point proves nothing)
  std::vector<bool> refitted(k, settled);
  if (!settled)
    for (size_t d : s.disc) fr.runner_up[d] = levels_at(d, fr.level_chi2[d]);
  r0 = ob.residuals(fr.x);
  fr.chi2 = 0;
  for (double r : r0) fr.chi2 += r * r;
  // 4. the costs' Jacobian in u: central differences over a tenth of each range (one-sided
  //    at a bound): a step that spans a stair measures the slope that matters
  const double h = 0.1;
  std::vector<std::vector<double>> J(r0.size(), std::vector<double>(k, 0));
  std::vector<double> colnorm(k, 0);
  for (size_t j : s.cont) {
    std::vector<double> up = best_u, down = best_u;
    up[j] = std::min(1.0, best_u[j] + h / 2);
    down[j] = std::max(0.0, best_u[j] - h / 2);
    auto r1 = ob.residuals(s.to_x(up)), r2 = ob.residuals(s.to_x(down));
    for (size_t i = 0; i < r0.size(); ++i) {
      J[i][j] = (r1[i] - r2[i]) / (up[j] - down[j]);
      colnorm[j] += J[i][j] * J[i][j];
    }
    colnorm[j] = std::sqrt(colnorm[j]);
  }
  // costs that move no figure are not identifiable; the rest get (J^T J)^-1
  std::vector<size_t> idx;
  for (size_t j : s.cont)
    if (colnorm[j] > 0.5) idx.push_back(j);
  fr.sigma_ln.assign(k, NAN);
  fr.identifiable.assign(k, false);
  double dof = std::max(1.0, fr.n - static_cast<double>(idx.size() + s.disc.size()));
  fr.scale = std::max(1.0, fr.chi2 / dof);
  fr.chi2_consistent = dof + 2 * std::sqrt(2 * dof);
  fr.consistent = fr.chi2 <= fr.chi2_consistent;
  // a choice is identified when its runner-up is excluded at 2 sigma (delta chi2 > 4,
  // scaled by chi2 per degree of freedom) and is not itself consistent with the profile
  // (a consistent fit cannot tell its level from another consistent one)
  for (size_t d : s.disc)
    if (fr.runner_up[d] >= 0) {
      double c = fr.level_chi2[d][static_cast<size_t>(fr.runner_up[d])];
      fr.delta_chi2[d] = c - fr.chi2;
      fr.identifiable[d] = refitted[d] && fr.delta_chi2[d] > 4 * fr.scale && !(fr.consistent && c <= fr.chi2_consistent);
    }
  while (!idx.empty()) {
    std::vector<std::vector<double>> A(idx.size(), std::vector<double>(idx.size(), 0));
    for (size_t a = 0; a < idx.size(); ++a)
      for (size_t b = 0; b < idx.size(); ++b)
        for (size_t i = 0; i < r0.size(); ++i) A[a][b] += J[i][idx[a]] * J[i][idx[b]];
    if (invert(A)) {
      for (size_t a = 0; a < idx.size(); ++a) {
        size_t j = idx[a];
        double su = std::sqrt(std::max(0.0, A[a][a]) * fr.scale);
        // a fit consistent with the noise cannot tell its point from any other that is:
        // half the width of that region (delta chi2 up to the consistency bound, in the
        // linear model) is a sigma too
        su = std::max(su, std::sqrt(std::max(0.0, A[a][a]) * std::max(0.0, fr.chi2_consistent - fr.chi2)) / 2);
        const FitParam& f = ob.params[j];
        // and every point evaluated that is consistent with the profile (chi2 within the
        // ~95 % range of its chi2 distribution, dof + 2 sqrt(2 dof)) and puts this cost
        // elsewhere widens its interval to half that distance: the linear model is
        // overconfident where figures are staircases in the costs
        if (fr.consistent)
          for (const auto& [c, us] : s.seen)
            if (c <= fr.chi2_consistent) su = std::max(su, std::fabs(us[j] - best_u[j]) / 2);
        fr.sigma_ln[j] = f.log ? su * std::log(f.hi / f.lo) : su * (f.hi - f.lo);
        fr.identifiable[j] = su < 0.2;  // the 1-sigma interval spans < 1/5 of the range searched
      }
      break;
    }
    // singular: drop the weakest column and try again
    size_t weakest = 0;
    for (size_t a = 1; a < idx.size(); ++a)
      if (colnorm[idx[a]] < colnorm[idx[weakest]]) weakest = a;
    idx.erase(idx.begin() + static_cast<long>(weakest));
  }
  if (!ob.quiet && isatty(2)) std::fprintf(stderr, "\n");
  return fr;
}

}  // namespace vtick
