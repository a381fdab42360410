// Gapped Karlin-Altschul parameters as NCBI BLAST publishes them.
//
// Source: NCBI C++ Toolkit, src/algo/blast/core/blast_stat.c (repository
// ncbi/ncbi-cxx-toolkit-public, commit 0088c685d36c5635ef44fc21a2635b0a62c53b59),
// the tables blosum45_values, blosum50_values, blosum62_values,
// blosum80_values, pam30_values, pam70_values and pam250_values. Each row
// there is {gap open, gap extend, decline to align, lambda, K, H, alpha,
// beta, theta, ...}; the ungapped rows (open = INT2_MAX) are left out, as
// are rows with a finite decline-to-align cost (there are none for these
// matrices). Gap penalties follow the same convention as ours.
#include "trellis/align/statistics.hpp"

#include <array>
#include <cmath>
#include <numbers>

namespace trellis::align {
namespace {

struct PublishedRow {
  std::string_view matrix;
  std::int32_t open;
  std::int32_t extend;
  KarlinAltschul parameters;  // lambda, K, H, alpha, beta
};

// clang-format off
constexpr std::array kPublished = std::to_array<PublishedRow>({
    {"BLOSUM45", 13, 3, {0.207, 0.049, 0.14, 1.5, -22}},
    {"BLOSUM45", 12, 3, {0.199, 0.039, 0.11, 1.8, -34}},
    {"BLOSUM45", 11, 3, {0.190, 0.031, 0.095, 2.0, -38}},
    {"BLOSUM45", 10, 3, {0.179, 0.023, 0.075, 2.4, -51}},
    {"BLOSUM45", 16, 2, {0.210, 0.051, 0.14, 1.5, -24}},
    {"BLOSUM45", 15, 2, {0.203, 0.041, 0.12, 1.7, -31}},
    {"BLOSUM45", 14, 2, {0.195, 0.032, 0.10, 1.9, -36}},
    {"BLOSUM45", 13, 2, {0.185, 0.024, 0.084, 2.2, -45}},
    {"BLOSUM45", 12, 2, {0.171, 0.016, 0.061, 2.8, -65}},
    {"BLOSUM45", 19, 1, {0.205, 0.040, 0.11, 1.9, -43}},
    {"BLOSUM45", 18, 1, {0.198, 0.032, 0.10, 2.0, -43}},
    {"BLOSUM45", 17, 1, {0.189, 0.024, 0.079, 2.4, -57}},
    {"BLOSUM45", 16, 1, {0.176, 0.016, 0.063, 2.8, -67}},

    {"BLOSUM50", 13, 3, {0.212, 0.063, 0.19, 1.1, -16}},
    {"BLOSUM50", 12, 3, {0.206, 0.055, 0.17, 1.2, -18}},
    {"BLOSUM50", 11, 3, {0.197, 0.042, 0.14, 1.4, -25}},
    {"BLOSUM50", 10, 3, {0.186, 0.031, 0.11, 1.7, -34}},
    {"BLOSUM50",  9, 3, {0.172, 0.022, 0.082, 2.1, -48}},
    {"BLOSUM50", 16, 2, {0.215, 0.066, 0.20, 1.05, -15}},
    {"BLOSUM50", 15, 2, {0.210, 0.058, 0.17, 1.2, -20}},
    {"BLOSUM50", 14, 2, {0.202, 0.045, 0.14, 1.4, -27}},
    {"BLOSUM50", 13, 2, {0.193, 0.035, 0.12, 1.6, -32}},
    {"BLOSUM50", 12, 2, {0.181, 0.025, 0.095, 1.9, -41}},
    {"BLOSUM50", 19, 1, {0.212, 0.057, 0.18, 1.2, -21}},
    {"BLOSUM50", 18, 1, {0.207, 0.050, 0.15, 1.4, -28}},
    {"BLOSUM50", 17, 1, {0.198, 0.037, 0.12, 1.6, -33}},
    {"BLOSUM50", 16, 1, {0.186, 0.025, 0.10, 1.9, -42}},
    {"BLOSUM50", 15, 1, {0.171, 0.015, 0.063, 2.7, -76}},

    {"BLOSUM62", 11, 2, {0.297, 0.082, 0.27, 1.1, -10}},
    {"BLOSUM62", 10, 2, {0.291, 0.075, 0.23, 1.3, -15}},
    {"BLOSUM62",  9, 2, {0.279, 0.058, 0.19, 1.5, -19}},
    {"BLOSUM62",  8, 2, {0.264, 0.045, 0.15, 1.8, -26}},
    {"BLOSUM62",  7, 2, {0.239, 0.027, 0.10, 2.5, -46}},
    {"BLOSUM62",  6, 2, {0.201, 0.012, 0.061, 3.3, -58}},
    {"BLOSUM62", 13, 1, {0.292, 0.071, 0.23, 1.2, -11}},
    {"BLOSUM62", 12, 1, {0.283, 0.059, 0.19, 1.5, -19}},
    {"BLOSUM62", 11, 1, {0.267, 0.041, 0.14, 1.9, -30}},
    {"BLOSUM62", 10, 1, {0.243, 0.024, 0.10, 2.5, -44}},
    {"BLOSUM62",  9, 1, {0.206, 0.010, 0.052, 4.0, -87}},

    {"BLOSUM80", 25, 2, {0.342, 0.17, 0.66, 0.52, -1.6}},
    {"BLOSUM80", 13, 2, {0.336, 0.15, 0.57, 0.59, -3}},
    {"BLOSUM80",  9, 2, {0.319, 0.11, 0.42, 0.76, -6}},
    {"BLOSUM80",  8, 2, {0.308, 0.090, 0.35, 0.89, -9}},
    {"BLOSUM80",  7, 2, {0.293, 0.070, 0.27, 1.1, -14}},
    {"BLOSUM80",  6, 2, {0.268, 0.045, 0.19, 1.4, -19}},
    {"BLOSUM80", 11, 1, {0.314, 0.095, 0.35, 0.90, -9}},
    {"BLOSUM80", 10, 1, {0.299, 0.071, 0.27, 1.1, -14}},
    {"BLOSUM80",  9, 1, {0.279, 0.048, 0.20, 1.4, -19}},

    {"PAM30", 7, 2, {0.305, 0.15, 0.87, 0.35, -3}},
    {"PAM30", 6, 2, {0.287, 0.11, 0.68, 0.42, -4}},
    {"PAM30", 5, 2, {0.264, 0.079, 0.45, 0.59, -7}},
    {"PAM30", 10, 1, {0.309, 0.15, 0.88, 0.35, -3}},
    {"PAM30", 9, 1, {0.294, 0.11, 0.61, 0.48, -6}},
    {"PAM30", 8, 1, {0.270, 0.072, 0.40, 0.68, -10}},

    {"PAM70", 8, 2, {0.301, 0.12, 0.54, 0.56, -5}},
    {"PAM70", 7, 2, {0.286, 0.093, 0.43, 0.67, -7}},
    {"PAM70", 6, 2, {0.264, 0.064, 0.29, 0.90, -12}},
    {"PAM70", 11, 1, {0.305, 0.12, 0.52, 0.59, -6}},
    {"PAM70", 10, 1, {0.291, 0.091, 0.41, 0.71, -9}},
    {"PAM70", 9, 1, {0.270, 0.060, 0.28, 0.97, -14}},

    {"PAM250", 15, 3, {0.205, 0.049, 0.13, 1.6, -23}},
    {"PAM250", 14, 3, {0.200, 0.043, 0.12, 1.7, -26}},
    {"PAM250", 13, 3, {0.194, 0.036, 0.10, 1.9, -31}},
    {"PAM250", 12, 3, {0.186, 0.029, 0.085, 2.2, -41}},
    {"PAM250", 11, 3, {0.174, 0.020, 0.070, 2.5, -48}},
    {"PAM250", 17, 2, {0.204, 0.047, 0.12, 1.7, -28}},
    {"PAM250", 16, 2, {0.198, 0.038, 0.11, 1.8, -29}},
    {"PAM250", 15, 2, {0.191, 0.031, 0.087, 2.2, -44}},
    {"PAM250", 14, 2, {0.182, 0.024, 0.073, 2.5, -53}},
    {"PAM250", 13, 2, {0.171, 0.017, 0.059, 2.9, -64}},
    {"PAM250", 21, 1, {0.205, 0.045, 0.11, 1.8, -34}},
    {"PAM250", 20, 1, {0.199, 0.037, 0.10, 1.9, -35}},
    {"PAM250", 19, 1, {0.192, 0.029, 0.083, 2.3, -52}},
    {"PAM250", 18, 1, {0.183, 0.021, 0.070, 2.6, -60}},
    {"PAM250", 17, 1, {0.171, 0.014, 0.052, 3.3, -86}},
});
// clang-format on

}  // namespace

std::optional<KarlinAltschul> gapped_parameters(std::string_view builtin_matrix_name, const GapPenalties& gaps) {
  for (const PublishedRow& row : kPublished) {
    if (row.matrix == builtin_matrix_name && row.open == gaps.open && row.extend == gaps.extend) {
      return row.parameters;
    }
  }
  return std::nullopt;
}

std::optional<KarlinAltschul> gapped_parameters(const ScoringMatrix& matrix, const GapPenalties& gaps) {
  // A file may call itself BLOSUM62 and hold other numbers: no statistics.
  if (!matrix.is_builtin()) return std::nullopt;
  return gapped_parameters(matrix.name(), gaps);
}

double bit_score(std::int64_t raw_score, const KarlinAltschul& parameters) noexcept {
  return (parameters.lambda * static_cast<double>(raw_score) - std::log(parameters.k)) / std::numbers::ln2;
}

double evalue(std::int64_t raw_score, const KarlinAltschul& parameters, std::int64_t query_length,
              std::int64_t database_residues) noexcept {
  return parameters.k * static_cast<double>(query_length) * static_cast<double>(database_residues) *
         std::exp(-parameters.lambda * static_cast<double>(raw_score));
}

}  // namespace trellis::align
