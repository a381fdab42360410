// The residue alphabet and how letters outside it are scored.
//
// How NCBI BLAST+ scores the letters the 24-letter matrices lack (NCBI C++
// Toolkit, src/algo/blast/core/blast_stat.c, BlastScoreBlkProteinMatrixLoad,
// commit 0088c685d36c5635ef44fc21a2635b0a62c53b59 of ncbi-cxx-toolkit-public):
// - U (selenocysteine) and O (pyrrolysine) are given the X row and column
//   ("Use the X scores for the more exotic ncbistdaa characters; if this is
//   not done then they will never align to non-gap residues"). We follow
//   this: U and O encode as X. (Some later copies of the file-reading path,
//   BlastScoreBlkProteinMatrixRead, score U as C instead; we follow the
//   built-in matrix path, which is what the default search uses.)
// - J (leucine or isoleucine): the 24-letter matrices (BLOSUM45/62/80, PAM*)
//   have no J, and NCBISM_GetScore returns the matrix's lowest score for it
//   against every letter, J itself included. We do not follow that: J
//   encodes as X, an unknown residue, which keeps the alphabet at 24 letters
//   and scores J as the mixture it stands for rather than as a stop codon.
// - B (N or D), Z (Q or E) and X have their own rows in every matrix.
#include <array>

#include <fmt/format.h>

#include "trellis/align/sequence.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

constexpr std::array<Residue, 256> make_codes() {
  std::array<Residue, 256> codes{};
  codes.fill(kNotAResidue);
  for (std::size_t i = 0; i < kAlphabetLetters.size(); ++i) {
    const char upper = kAlphabetLetters[i];
    codes[static_cast<unsigned char>(upper)] = static_cast<Residue>(i);
    if (upper >= 'A' && upper <= 'Z') codes[static_cast<unsigned char>(upper - 'A' + 'a')] = static_cast<Residue>(i);
  }
  for (const char extra : {'J', 'U', 'O', 'j', 'u', 'o'}) codes[static_cast<unsigned char>(extra)] = kResidueX;
  return codes;
}

constexpr std::array<Residue, 256> kCodes = make_codes();

}  // namespace

Residue encode_residue(char letter) noexcept { return kCodes[static_cast<unsigned char>(letter)]; }

char residue_letter(Residue code) noexcept { return code < kAlphabetSize ? kAlphabetLetters[code] : '?'; }

std::vector<Residue> encode_protein(std::string_view letters) {
  std::vector<Residue> residues(letters.size());
  for (std::size_t i = 0; i < letters.size(); ++i) {
    residues[i] = encode_residue(letters[i]);
    if (residues[i] == kNotAResidue) {
      throw UsageError(fmt::format("'{}' (byte 0x{:02x}) at position {} is not a protein residue letter", letters[i],
                                   static_cast<unsigned char>(letters[i]), i + 1));
    }
  }
  return residues;
}

std::string decode_protein(std::span<const Residue> residues) {
  std::string letters(residues.size(), '?');
  for (std::size_t i = 0; i < residues.size(); ++i) letters[i] = residue_letter(residues[i]);
  return letters;
}

}  // namespace trellis::align
