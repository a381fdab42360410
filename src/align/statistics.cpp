// Bit scores and E-values as BLAST+ computes them (see the header).
//
// Source of the numbers and of the formulas: NCBI C++ Toolkit,
// src/algo/blast/core/blast_stat.c (ncbi/ncbi-cxx-toolkit-public; these
// tables are unchanged from BLAST+ 2.12 to 2026): the tables blosum45_values
// ... pam250_values, BLAST_ComputeLengthAdjustment and BLAST_SpougeStoE; the
// search space in blast_setup.c (BLAST_CalcEffLengths) and the choice
// between the two E-values in blast_hits.c (Blast_HSPListGetEvalues). Each
// table row is {gap open, gap extend, decline to align, lambda, K, H, alpha,
// beta, C, alpha_v, sigma}; the first row of each matrix is its ungapped
// one (open = extend = INT2_MAX), of which Spouge's correction uses alpha and
// alpha_v. C (the p-value prefactor) is not used for E-values. Gap penalties
// follow the same convention as ours (a gap of k costs open + k * extend).
#include "trellis/align/statistics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace trellis::align {
namespace {

struct PublishedRow {
  std::string_view matrix;
  std::int32_t open;
  std::int32_t extend;
  double lambda, k, h, alpha, beta, alpha_v, sigma;
};

struct UngappedRow {
  std::string_view matrix;
  double alpha, alpha_v;
};

// clang-format off
constexpr std::array kPublished = std::to_array<PublishedRow>({
    {"BLOSUM45", 13, 3, 0.207, 0.049, 0.14, 1.5, -22, 35.855900, 35.963900},
    {"BLOSUM45", 12, 3, 0.199, 0.039, 0.11, 1.8, -34, 45.693600, 45.851700},
    {"BLOSUM45", 11, 3, 0.190, 0.031, 0.095, 2.0, -38, 62.874100, 63.103700},
    {"BLOSUM45", 10, 3, 0.179, 0.023, 0.075, 2.4, -51, 88.286800, 88.639100},
    {"BLOSUM45", 16, 2, 0.210, 0.051, 0.14, 1.5, -24, 36.279800, 36.452400},
    {"BLOSUM45", 15, 2, 0.203, 0.041, 0.12, 1.7, -31, 44.825700, 45.060400},
    {"BLOSUM45", 14, 2, 0.195, 0.032, 0.10, 1.9, -36, 60.736200, 61.102300},
    {"BLOSUM45", 13, 2, 0.185, 0.024, 0.084, 2.2, -45, 85.148100, 85.689400},
    {"BLOSUM45", 12, 2, 0.171, 0.016, 0.061, 2.8, -65, 127.758000, 128.582000},
    {"BLOSUM45", 19, 1, 0.205, 0.040, 0.11, 1.9, -43, 53.071400, 53.828200},
    {"BLOSUM45", 18, 1, 0.198, 0.032, 0.10, 2.0, -43, 72.342400, 73.403900},
    {"BLOSUM45", 17, 1, 0.189, 0.024, 0.079, 2.4, -57, 103.055000, 104.721000},
    {"BLOSUM45", 16, 1, 0.176, 0.016, 0.063, 2.8, -67, 170.100000, 173.003000},

    {"BLOSUM50", 13, 3, 0.212, 0.063, 0.19, 1.1, -16, 18.113800, 18.202800},
    {"BLOSUM50", 12, 3, 0.206, 0.055, 0.17, 1.2, -18, 22.654600, 22.777700},
    {"BLOSUM50", 11, 3, 0.197, 0.042, 0.14, 1.4, -25, 29.861100, 30.045700},
    {"BLOSUM50", 10, 3, 0.186, 0.031, 0.11, 1.7, -34, 42.393800, 42.674000},
    {"BLOSUM50", 9, 3, 0.172, 0.022, 0.082, 2.1, -48, 66.069600, 66.516400},
    {"BLOSUM50", 16, 2, 0.215, 0.066, 0.20, 1.05, -15, 17.951800, 18.092100},
    {"BLOSUM50", 15, 2, 0.210, 0.058, 0.17, 1.2, -20, 21.940100, 22.141800},
    {"BLOSUM50", 14, 2, 0.202, 0.045, 0.14, 1.4, -27, 28.681200, 28.961900},
    {"BLOSUM50", 13, 2, 0.193, 0.035, 0.12, 1.6, -32, 42.059500, 42.471600},
    {"BLOSUM50", 12, 2, 0.181, 0.025, 0.095, 1.9, -41, 63.747600, 64.397300},
    {"BLOSUM50", 19, 1, 0.212, 0.057, 0.18, 1.2, -21, 26.311200, 26.923300},
    {"BLOSUM50", 18, 1, 0.207, 0.050, 0.15, 1.4, -28, 34.903700, 35.734800},
    {"BLOSUM50", 17, 1, 0.198, 0.037, 0.12, 1.6, -33, 48.895800, 50.148600},
    {"BLOSUM50", 16, 1, 0.186, 0.025, 0.10, 1.9, -42, 76.469100, 78.443000},
    {"BLOSUM50", 15, 1, 0.171, 0.015, 0.063, 2.7, -76, 140.053000, 144.160000},

    {"BLOSUM62", 11, 2, 0.297, 0.082, 0.27, 1.1, -10, 12.673800, 12.757600},
    {"BLOSUM62", 10, 2, 0.291, 0.075, 0.23, 1.3, -15, 16.474000, 16.602600},
    {"BLOSUM62", 9, 2, 0.279, 0.058, 0.19, 1.5, -19, 22.751900, 22.950000},
    {"BLOSUM62", 8, 2, 0.264, 0.045, 0.15, 1.8, -26, 35.483800, 35.821300},
    {"BLOSUM62", 7, 2, 0.239, 0.027, 0.10, 2.5, -46, 61.238300, 61.886000},
    {"BLOSUM62", 6, 2, 0.201, 0.012, 0.061, 3.3, -58, 140.417000, 141.882000},
    {"BLOSUM62", 13, 1, 0.292, 0.071, 0.23, 1.2, -11, 19.506300, 19.893100},
    {"BLOSUM62", 12, 1, 0.283, 0.059, 0.19, 1.5, -19, 27.856200, 28.469900},
    {"BLOSUM62", 11, 1, 0.267, 0.041, 0.14, 1.9, -30, 42.602800, 43.636200},
    {"BLOSUM62", 10, 1, 0.243, 0.024, 0.10, 2.5, -44, 83.178700, 85.065600},
    {"BLOSUM62", 9, 1, 0.206, 0.010, 0.052, 4.0, -87, 210.333000, 214.842000},

    {"BLOSUM80", 25, 2, 0.342, 0.17, 0.66, 0.52, -1.6, 1.731000, 1.731300},
    {"BLOSUM80", 13, 2, 0.336, 0.15, 0.57, 0.59, -3, 2.673470, 2.692300},
    {"BLOSUM80", 9, 2, 0.319, 0.11, 0.42, 0.76, -6, 5.576090, 5.667860},
    {"BLOSUM80", 8, 2, 0.308, 0.090, 0.35, 0.89, -9, 7.536950, 7.686230},
    {"BLOSUM80", 7, 2, 0.293, 0.070, 0.27, 1.1, -14, 11.586600, 11.840400},
    {"BLOSUM80", 6, 2, 0.268, 0.045, 0.19, 1.4, -19, 19.958100, 20.441200},
    {"BLOSUM80", 11, 1, 0.314, 0.095, 0.35, 0.90, -9, 8.808610, 9.223320},
    {"BLOSUM80", 10, 1, 0.299, 0.071, 0.27, 1.1, -14, 13.833800, 14.533400},
    {"BLOSUM80", 9, 1, 0.279, 0.048, 0.20, 1.4, -19, 24.252000, 25.490400},

    {"PAM30", 7, 2, 0.305, 0.15, 0.87, 0.35, -3, 1.014010, 1.162730},
    {"PAM30", 6, 2, 0.287, 0.11, 0.68, 0.42, -4, 1.688060, 1.951430},
    {"PAM30", 5, 2, 0.264, 0.079, 0.45, 0.59, -7, 3.377010, 3.871950},
    {"PAM30", 10, 1, 0.309, 0.15, 0.88, 0.35, -3, 1.372050, 1.788770},
    {"PAM30", 9, 1, 0.294, 0.11, 0.61, 0.48, -6, 2.463920, 3.186150},
    {"PAM30", 8, 1, 0.270, 0.072, 0.40, 0.68, -10, 5.368130, 6.763480},
    {"PAM30", 15, 3, 0.339, 0.28, 1.70, 0.20, -0.5, 0.157089, 0.155299},
    {"PAM30", 14, 2, 0.337, 0.27, 1.62, 0.21, -0.8, 0.206970, 0.198524},
    {"PAM30", 14, 1, 0.333, 0.27, 1.43, 0.23, -1.4, 0.436301, 0.361947},
    {"PAM30", 13, 3, 0.338, 0.27, 1.69, 0.20, -0.5, 0.178973, 0.175436},

    {"PAM70", 8, 2, 0.301, 0.12, 0.54, 0.56, -5, 2.881650, 3.025710},
    {"PAM70", 7, 2, 0.286, 0.093, 0.43, 0.67, -7, 4.534540, 4.785780},
    {"PAM70", 6, 2, 0.264, 0.064, 0.29, 0.90, -12, 7.942630, 8.402720},
    {"PAM70", 11, 1, 0.305, 0.12, 0.52, 0.59, -6, 3.681400, 4.108020},
    {"PAM70", 10, 1, 0.291, 0.091, 0.41, 0.71, -9, 6.002970, 6.716570},
    {"PAM70", 9, 1, 0.270, 0.060, 0.28, 0.97, -14, 11.360800, 12.636700},
    {"PAM70", 11, 2, 0.323, 0.186, 0.80, 1.32, -27, 1.321301, 1.281671},
    {"PAM70", 12, 3, 0.330, 0.219, 0.93, 0.82, -16, 0.818768, 0.811240},

    {"PAM250", 15, 3, 0.205, 0.049, 0.13, 1.6, -23, 34.578400, 34.928000},
    {"PAM250", 14, 3, 0.200, 0.043, 0.12, 1.7, -26, 43.353000, 43.443800},
    {"PAM250", 13, 3, 0.194, 0.036, 0.10, 1.9, -31, 50.948500, 51.081700},
    {"PAM250", 12, 3, 0.186, 0.029, 0.085, 2.2, -41, 69.606500, 69.793600},
    {"PAM250", 11, 3, 0.174, 0.020, 0.070, 2.5, -48, 98.653500, 98.927100},
    {"PAM250", 17, 2, 0.204, 0.047, 0.12, 1.7, -28, 41.583800, 41.735800},
    {"PAM250", 16, 2, 0.198, 0.038, 0.11, 1.8, -29, 51.635200, 51.843900},
    {"PAM250", 15, 2, 0.191, 0.031, 0.087, 2.2, -44, 67.256700, 67.558500},
    {"PAM250", 14, 2, 0.182, 0.024, 0.073, 2.5, -53, 96.315100, 96.756800},
    {"PAM250", 13, 2, 0.171, 0.017, 0.059, 2.9, -64, 135.653000, 136.339000},
    {"PAM250", 21, 1, 0.205, 0.045, 0.11, 1.8, -34, 48.728200, 49.218800},
    {"PAM250", 20, 1, 0.199, 0.037, 0.10, 1.9, -35, 60.832000, 61.514100},
    {"PAM250", 19, 1, 0.192, 0.029, 0.083, 2.3, -52, 84.019700, 84.985600},
    {"PAM250", 18, 1, 0.183, 0.021, 0.070, 2.6, -60, 113.829000, 115.184000},
    {"PAM250", 17, 1, 0.171, 0.014, 0.052, 3.3, -86, 175.071000, 177.196000},
});

constexpr std::array kUngapped = std::to_array<UngappedRow>({
    {"BLOSUM45", 0.9113, 9.611060},
    {"BLOSUM50", 0.6895, 5.388310},
    {"BLOSUM62", 0.7916, 4.964660},
    {"BLOSUM80", 0.5222, 1.918130},
    {"PAM30", 0.1938, 0.161818},
    {"PAM70", 0.3250, 0.633439},
    {"PAM250", 0.98, 11.754300},
});
// clang-format on

}  // namespace

std::optional<KarlinAltschul> gapped_parameters(std::string_view builtin_matrix_name, const GapPenalties& gaps) {
  const auto ungapped = std::find_if(kUngapped.begin(), kUngapped.end(),
                                     [&](const UngappedRow& row) { return row.matrix == builtin_matrix_name; });
  if (ungapped == kUngapped.end()) return std::nullopt;
  for (const PublishedRow& row : kPublished) {
    if (row.matrix == builtin_matrix_name && row.open == gaps.open && row.extend == gaps.extend) {
      return KarlinAltschul{
          row.lambda,  row.k,     row.h,           row.alpha,         row.beta,
          row.alpha_v, row.sigma, ungapped->alpha, ungapped->alpha_v, static_cast<double>(row.open + row.extend)};
    }
  }
  return std::nullopt;
}

std::optional<KarlinAltschul> gapped_parameters(const ScoringMatrix& matrix, const GapPenalties& gaps) {
  // A file may call itself BLOSUM62 and hold other numbers: no statistics.
  if (!matrix.is_builtin()) return std::nullopt;
  return gapped_parameters(matrix.name(), gaps);
}

std::vector<GapPenalties> published_gap_penalties(std::string_view builtin_matrix_name) {
  std::vector<GapPenalties> pairs;
  for (const PublishedRow& row : kPublished) {
    if (row.matrix == builtin_matrix_name) pairs.push_back({row.open, row.extend});
  }
  return pairs;
}

double bit_score(std::int64_t raw_score, const KarlinAltschul& parameters) noexcept {
  return (parameters.lambda * static_cast<double>(raw_score) - std::log(parameters.k)) / std::numbers::ln2;
}

double evalue(std::int64_t raw_score, const KarlinAltschul& parameters, std::int64_t query_length,
              std::int64_t database_residues) noexcept {
  return parameters.k * static_cast<double>(query_length) * static_cast<double>(database_residues) *
         std::exp(-parameters.lambda * static_cast<double>(raw_score));
}

std::int64_t length_adjustment(const KarlinAltschul& parameters, std::int64_t query_length,
                               std::int64_t database_residues, std::int64_t database_sequences) noexcept {
  const double m = static_cast<double>(query_length);
  const double n = static_cast<double>(database_residues);
  const double sequences = static_cast<double>(database_sequences);
  const double log_k = std::log(parameters.k);
  const double alpha_over_lambda = parameters.alpha / parameters.lambda;
  const auto next_of = [&](double ell) {
    return alpha_over_lambda * (log_k + std::log((m - ell) * (n - sequences * ell))) + parameters.beta;
  };

  // ell_max: the largest ell with K (m - ell)(n - D ell) >= max(m, n), the
  // smaller root of a quadratic, written as 2c / (-b + sqrt(b^2 - 4ac)) so
  // that it stays accurate when a (the sequence count) is small.
  const double c = n * m - std::max(m, n) / parameters.k;
  if (c < 0) return 0;
  const double minus_b = m * sequences + n;
  double ell_max = 2 * c / (minus_b + std::sqrt(minus_b * minus_b - 4 * sequences * c));

  // Bisection towards the fixed point from below, taking a proposed value
  // where it stays inside the bracket.
  double ell_min = 0;
  double ell_next = 0;
  bool converged = false;
  constexpr int kMaxSteps = 20;
  for (int step = 1; step <= kMaxSteps; ++step) {
    const double ell = ell_next;
    const double proposed = next_of(ell);
    if (proposed >= ell) {
      ell_min = ell;
      if (proposed - ell_min <= 1.0) {
        converged = true;
        break;
      }
      if (ell_min == ell_max) break;
    } else {
      ell_max = ell;
    }
    if (ell_min <= proposed && proposed <= ell_max) {
      ell_next = proposed;
    } else {
      ell_next = step == 1 ? ell_max : (ell_min + ell_max) / 2;
    }
  }
  auto adjustment = static_cast<std::int64_t>(ell_min);
  // floor(ell_min) is the answer unless ceil(ell_min) is still below the fixed point.
  if (converged) {
    const double up = std::ceil(ell_min);
    if (up <= ell_max && next_of(up) >= up) adjustment = static_cast<std::int64_t>(up);
  }
  return adjustment;
}

std::int64_t effective_search_space(const KarlinAltschul& parameters, std::int64_t query_length,
                                    std::int64_t database_residues, std::int64_t database_sequences) noexcept {
  const std::int64_t ell = length_adjustment(parameters, query_length, database_residues, database_sequences);
  const std::int64_t database = std::max<std::int64_t>(1, database_residues - database_sequences * ell);
  return database * (query_length - ell);
}

double karlin_altschul_evalue(std::int64_t raw_score, const KarlinAltschul& parameters,
                              std::int64_t search_space) noexcept {
  return static_cast<double>(search_space) *
         std::exp(-parameters.lambda * static_cast<double>(raw_score) + std::log(parameters.k));
}

// Spouge's finite-size correction. An alignment of score y uses on average
// mean(y) = a y + b residues of each sequence, with variance
// var(y) = max(2 alpha_v / lambda, alpha_v y + beta_v) and covariance of the
// two lengths cov(y) = max(2 sigma / lambda, sigma y + tau); the intercepts
// follow from the gapped and ungapped slopes and G = open + extend:
// b = 2G(a_un - a), beta_v = 2G(alpha_v_un - alpha_v), tau = 2G(alpha_v_un - sigma).
// For a sequence of length L the room left, L - length, is normal; its
// expected positive part is  (L - mean) Phi(t) + sd phi(t)  with
// t = (L - mean) / sd, sd = sqrt(var). Then
//   area = room(m) room(n) + cov Phi(t_m) Phi(t_n)
//   E    = area K exp(-lambda y) (database residues / n)
// The last factor turns the pair's E-value into the database's: the pair is
// one of about residues / n of its kind. (BLAST also rescales a, alpha_v and
// sigma by lambda's scaling for rescaled scores; ours are never rescaled.)
double spouge_evalue(std::int64_t raw_score, const KarlinAltschul& p, std::int64_t query_length,
                     std::int64_t subject_length, std::int64_t database_residues) noexcept {
  const double y = static_cast<double>(raw_score);
  const double g = p.gap_open_extend;
  const double b = 2.0 * g * (p.ungapped_alpha - p.alpha);
  const double beta_v = 2.0 * g * (p.ungapped_alpha_v - p.alpha_v);
  const double tau = 2.0 * g * (p.ungapped_alpha_v - p.sigma);
  const double mean = p.alpha * y + b;
  const double sd = std::sqrt(std::max(2.0 * p.alpha_v / p.lambda, p.alpha_v * y + beta_v));
  const double cov = std::max(2.0 * p.sigma / p.lambda, p.sigma * y + tau);

  constexpr double kInvSqrt2Pi = 0.39894228040143267793994605993438;
  struct Room {
    double expected;  // E[max(0, L - length)]
    double phi;       // P(length < L)
  };
  const auto room = [&](std::int64_t length) {
    const double excess = static_cast<double>(length) - mean;
    const double t = excess / sd;
    const double below = std::erfc(-t / std::numbers::sqrt2) / 2.0;
    return Room{excess * below + sd * kInvSqrt2Pi * std::exp(-0.5 * t * t), below};
  };
  const Room query = room(query_length);
  const Room subject = room(subject_length);
  const double area = query.expected * subject.expected + cov * query.phi * subject.phi;
  const double database_scale =
      database_residues > 0 ? static_cast<double>(database_residues) / static_cast<double>(subject_length) : 1.0;
  return area * p.k * std::exp(-p.lambda * y) * database_scale;
}

}  // namespace trellis::align
