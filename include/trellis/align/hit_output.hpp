// Search hits as text: BLAST's tabular formats (outfmt 6 and 7), BLAST-like
// pairwise alignments, and JSON.
//
// Numbers follow BLAST+'s tabular output: pident with 3 decimals; E-values
// "0.0" below 1e-180, two decimals in e notation below 0.0009 ("3.10e-42"),
// else 3, 2, 1 or 0 decimals below 0.1, 1, 10 and above; bit scores with one
// decimal up to 99.9, as whole numbers (truncated) up to 99999, and in e
// notation beyond. Unlike BLAST, values are never padded with spaces. Where
// the matrix and gap pair have no published statistics, the E-value and bit
// score columns print "-" (JSON: null).
#pragma once

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trellis/align/scoring.hpp"
#include "trellis/align/search.hpp"
#include "trellis/align/sequence.hpp"

namespace trellis::align {

// Tabular columns, named as BLAST names them.
enum class TabularField {
  qseqid,    // query id
  qaccver,   // query id (BLAST: its accession.version, the same for ids it does not parse)
  sseqid,    // subject id
  saccver,   // subject id, likewise
  pident,    // percent identity over the alignment's columns
  length,    // alignment columns
  mismatch,  // mismatched pairs
  gapopen,   // gap runs
  qstart,    // first aligned query residue, 1-based
  qend,      // last aligned query residue
  sstart,    // first aligned subject residue, 1-based
  send,      // last aligned subject residue
  evalue,    // E-value
  bitscore,  // bit score
  score,     // raw score
  qlen,      // query length
  slen,      // subject length
  nident,    // identical pairs
  positive,  // pairs scoring above zero
  ppos,      // positives in percent of the columns, 2 decimals
  gaps,      // gap positions
  qcovs,     // query coverage per subject, whole percent (one alignment per subject: = qcovhsp)
  qcovhsp,   // query coverage of the alignment, whole percent
  qseq,      // aligned query with '-' for gaps
  sseq,      // aligned subject
  stitle,    // subject description ("N/A" when it has none)
};

// BLAST's "std": qaccver saccver pident length mismatch gapopen qstart qend
// sstart send evalue bitscore.
std::span<const TabularField> standard_columns() noexcept;

// The field's name as BLAST writes it ("qseqid", "pident", ...).
std::string_view field_name(TabularField field) noexcept;

// A comma- or blank-separated list of field names; "std" expands to the
// standard columns. Throws UsageError naming an unknown field (and listing
// the known ones) or for an empty list.
std::vector<TabularField> parse_columns(std::string_view list);

// BLAST+'s -outfmt for tabular output: "6" or "7" (with comment lines),
// optionally followed by column names as parse_columns takes them; std when
// none are given. Throws UsageError for another format or an unknown column.
struct TabularFormat {
  bool comments = false;              // outfmt 7: comment lines around each query's hits
  std::vector<TabularField> columns;  // the columns, in order
};
// Parses an -outfmt value ("6", "7", either followed by column names).
TabularFormat parse_outfmt(std::string_view spec);

// Number formats of the tabular output (see above); "-" for no value.
std::string format_evalue(std::optional<double> evalue);
// A bit score in BLAST+'s tabular format.
std::string format_bit_score(double bit_score);

// One tab-separated line per hit, queries in order, no header line.
void write_tabular(std::ostream& out, const std::vector<std::vector<Hit>>& hits, const SequenceSet& queries,
                   const SequenceSet& database, std::span<const TabularField> columns);

// outfmt 7: per query the comment lines BLAST+ writes ("# <program>",
// "# Query: <id and description>", "# Database: <name>", "# Fields: ..."
// with BLAST's column labels when there are hits, "# N hits found"), then
// its lines; at the end "# BLAST processed N queries".
void write_tabular_commented(std::ostream& out, const std::vector<std::vector<Hit>>& hits, const SequenceSet& queries,
                             const SequenceSet& database, std::span<const TabularField> columns,
                             std::string_view program, std::string_view database_name);

// Per query a "Query=" header and its length; per hit the subject's title
// and length, the raw and bit scores, the E-value, identities, positives
// and gaps, then the alignment in blocks of 60 columns: Query and Sbjct
// lines with the first and last residue positions of the block, and between
// them a line with the letter for identical residues, '+' for a pair
// scoring above zero and a blank otherwise. The scoring gives the positives.
void write_pairwise(std::ostream& out, const std::vector<std::vector<Hit>>& hits, const SequenceSet& queries,
                    const SequenceSet& database, const Scoring& scoring);

// An array with one object per query: {"query", "query_description",
// "query_length", "hits": [...]}, each hit holding the subject's id,
// description and length, score, bit_score and evalue (null without
// statistics), the alignment's counts, coordinates, aligned sequences and
// CIGAR.
void write_json(std::ostream& out, const std::vector<std::vector<Hit>>& hits, const SequenceSet& queries,
                const SequenceSet& database);

}  // namespace trellis::align
