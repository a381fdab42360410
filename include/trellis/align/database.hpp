// Prepared protein databases: a SequenceSet in one binary file that loads by
// mapping it, with the sequences already sorted by length for the engines
// (`trellis align makedb`).
//
// File layout, format version 1. Every integer is little-endian. The file is
// a 104-byte header followed by seven sections in the order listed; each
// section starts at an offset that is a multiple of 8 (the first at byte
// 104) and is followed by zero bytes up to the next multiple of 8. The
// header records each section's size without that padding, so section k
// starts at 104 + sum over j < k of round_up(size_j, 8), and the file is
// 104 + sum over all sections of round_up(size_k, 8) bytes long.
//
// Header:
//   offset  size  field
//        0    16  magic: the 9 bytes "TRELLISDB" followed by 7 zero bytes
//       16     4  u32 format version: 1
//       20     4  u32 CRC-32 (zlib's crc32, the gzip/PNG polynomial) of every
//                 byte after the header: bytes [104, file size), padding
//                 included
//       24     8  u64 sequence count, N
//       32     8  u64 total residues, R
//       40     8  u64 size of section 1, residues: R
//       48     8  u64 size of section 2, residue offsets: 8 * (N + 1)
//       56     8  u64 size of section 3, original indices: 4 * N
//       64     8  u64 size of section 4, id offsets: 8 * (N + 1)
//       72     8  u64 size of section 5, id bytes: I
//       80     8  u64 size of section 6, description offsets: 8 * (N + 1)
//       88     8  u64 size of section 7, description bytes: D
//       96     8  u64 file size in bytes
//
// Sections, all indexed by stored position s = 0..N-1. The sequences are
// stored in order of increasing length, equal lengths in input order.
//   1. residues: R bytes, u8 residue codes 0..23 (sequence.hpp's alphabet),
//      the stored sequences end to end.
//   2. residue offsets: N + 1 values, i64; sequence s is residues
//      [offset[s], offset[s+1]); offset[0] = 0, offset[N] = R, and the
//      lengths offset[s+1] - offset[s] never decrease.
//   3. original indices: N values, u32; stored sequence s was sequence
//      original[s] of the input (0-based). A permutation of 0..N-1,
//      increasing across each run of equal lengths.
//   4. id offsets: N + 1 values, u64, into section 5 as in section 2
//      (id_offset[0] = 0, id_offset[N] = I, never decreasing).
//   5. id bytes: the ids end to end, UTF-8 or bytes as read, no terminators.
//   6. description offsets: N + 1 values, u64, into section 7 likewise.
//   7. description bytes: the descriptions end to end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "trellis/align/sequence.hpp"

namespace trellis::align {

inline constexpr std::string_view kDatabaseMagic = "TRELLISDB";  // then zero bytes to 16
// The format version this build writes and reads.
inline constexpr std::uint32_t kDatabaseFormatVersion = 1;
// Size of the file header in bytes; the first section starts there.
inline constexpr std::size_t kDatabaseHeaderBytes = 104;

// Writes the database whole or not at all (AtomicOutputFile). Throws
// UsageError for a set whose sequences or text do not fit the format (more
// than 2^32 - 1 sequences) and Error when the file cannot be written.
void write_database(const SequenceSet& sequences, const std::filesystem::path& output);

// Reads a database written by write_database and returns its sequences in
// their original input order, so a search finds the same hits as on the
// FASTA it was made from. The whole file is checked before it is used
// (magic, version, sizes against the file's size, the CRC, offsets and
// length order, the permutation, residue codes); anything wrong is an
// InputError naming the file (line 0) and the problem.
SequenceSet read_database(const std::filesystem::path& path);

// A prepared database when the file starts with the magic, else FASTA or
// FASTA.gz (read_fasta_file).
SequenceSet read_sequences(const std::filesystem::path& path);

}  // namespace trellis::align
