// Seeded protein texts for the align tests: random letters over everything
// the FASTA reader accepts, relatives with deletions, insertions and
// substitutions, and sets of them named s0, s1, ...
#pragma once

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "trellis/align/sequence.hpp"

namespace trellis::testing {

// All 25 letters the reader accepts: the 20 amino acids, B Z J U O X and '*'.
inline constexpr std::string_view kProteinLetters = "ACDEFGHIKLMNPQRSTVWYBZJUOX*";

inline std::string random_letters(std::mt19937& random, std::size_t length) {
  std::string text(length, 'A');
  for (char& c : text) c = kProteinLetters[random() % kProteinLetters.size()];
  return text;
}

// Per source letter, out of 100 rolls: below `deleted` the letter is dropped;
// below `inserted` 1..max_insert random letters come before it; below
// `substituted` it is replaced by a random letter.
struct MutationRates {
  unsigned deleted;
  unsigned inserted;
  unsigned substituted;
  unsigned max_insert;
};

inline std::string relative_of(std::mt19937& random, const std::string& source, const MutationRates& rates) {
  std::string text;
  for (const char c : source) {
    const unsigned roll = random() % 100;
    if (roll < rates.deleted) continue;
    if (roll < rates.inserted) text += random_letters(random, 1 + random() % rates.max_insert);
    text += roll < rates.substituted ? kProteinLetters[random() % kProteinLetters.size()] : c;
  }
  return text;
}

// The texts as sequences s0, s1, ... without descriptions.
inline align::SequenceSet set_of(const std::vector<std::string>& texts) {
  align::SequenceSet set;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::string id = "s";
    id += std::to_string(i);
    set.add(std::move(id), "", align::encode_protein(texts[i]));
  }
  return set;
}

}  // namespace trellis::testing
