// trellis._native.align: sequence sets (FASTA, FASTA.gz, prepared databases
// or sequences given in memory) and the exact Smith-Waterman database
// search. A search's hits stay in C++ and are read out as columns (the
// BLAST tabular fields) or as the exact text `trellis align search` writes.
// Searches release the GIL, report progress between chunks of queries and
// stop on Ctrl-C.
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "trellis/align/database.hpp"
#include "trellis/align/hit_output.hpp"
#include "trellis/align/search.hpp"
#include "trellis/core/error.hpp"

namespace nb = nanobind;

namespace trellis::python {
namespace {

using align::SequenceSet;

SequenceSet sequences_from(const std::vector<std::string>& ids, const std::vector<std::string>& descriptions,
                           const std::vector<std::string>& letters) {
  if (ids.size() != letters.size() || descriptions.size() != letters.size()) {
    throw UsageError("ids, descriptions and sequences differ in length");
  }
  SequenceSet set;
  for (std::size_t i = 0; i < letters.size(); ++i) {
    if (ids[i].empty() || ids[i].find_first_of(" \t\r\n") != std::string::npos) {
      throw UsageError("sequence " + std::to_string(i) + ": an id must be one word, got '" + ids[i] + "'");
    }
    try {
      set.add(ids[i], descriptions[i], align::encode_protein(letters[i]));
    } catch (const UsageError& error) {
      throw UsageError("sequence " + std::to_string(i) + " (" + ids[i] + "): " + error.what());
    }
  }
  return set;
}

// A built-in matrix by name, else an NCBI matrix file; gap penalties default
// to BLAST's for a built-in matrix and 11/1 for a file (as the CLI does).
align::Scoring scoring_from(const std::string& matrix_name, int gap_open, int gap_extend) {
  bool builtin = false;
  for (const std::string_view name : align::builtin_matrix_names()) {
    if (name.size() == matrix_name.size() &&
        std::equal(name.begin(), name.end(), matrix_name.begin(), [](char a, char b) {
          return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b));
        })) {
      builtin = true;
    }
  }
  if (!builtin && !std::filesystem::exists(matrix_name)) {
    throw UsageError("matrix '" + matrix_name + "' is neither a built-in matrix nor a file");
  }
  align::ScoringMatrix matrix = builtin ? align::builtin_matrix(matrix_name) : align::read_matrix_file(matrix_name);
  align::GapPenalties gaps = builtin ? align::default_gap_penalties(matrix.name()) : align::GapPenalties{};
  if (gap_open >= 0) gaps.open = gap_open;
  if (gap_extend >= 0) gaps.extend = gap_extend;
  return align::Scoring(std::move(matrix), gaps);
}

align::EvalueStatistics statistics_from(const std::string& name) {
  if (name == "spouge") return align::EvalueStatistics::spouge;
  if (name == "karlin-altschul") return align::EvalueStatistics::karlin_altschul;
  if (name == "none") return align::EvalueStatistics::none;
  throw UsageError("statistics must be spouge, karlin-altschul or none, got '" + name + "'");
}

// The hits of one search with the sets and scoring they refer to.
class SearchHits {
 public:
  SearchHits(std::shared_ptr<const SequenceSet> queries, std::shared_ptr<const SequenceSet> database,
             align::Scoring scoring, std::vector<std::vector<align::Hit>> hits)
      : queries_(std::move(queries)),
        database_(std::move(database)),
        scoring_(std::move(scoring)),
        hits_(std::move(hits)) {}

  std::size_t size() const {
    std::size_t n = 0;
    for (const auto& per_query : hits_) n += per_query.size();
    return n;
  }

  // Column name -> list, one entry per hit, queries in order, hits in rank order.
  nb::dict columns(bool alignments) const {
    nb::list qseqid, sseqid, pident, length, mismatch, gapopen, qstart, qend, sstart, send, evalue, bitscore, score,
        qlen, slen, query_index, subject_index, qseq, sseq, cigar;
    for (const auto& per_query : hits_) {
      for (const align::Hit& hit : per_query) {
        const align::Alignment& a = hit.alignment;
        qseqid.append(queries_->id(hit.query));
        sseqid.append(database_->id(hit.subject));
        pident.append(a.percent_identity());
        length.append(a.length);
        mismatch.append(a.mismatches);
        gapopen.append(a.gap_opens);
        qstart.append(a.query_start);
        qend.append(a.query_end);
        sstart.append(a.subject_start);
        send.append(a.subject_end);
        evalue.append(hit.evalue ? nb::cast(*hit.evalue) : nb::none());
        bitscore.append(std::isnan(hit.bit_score) ? nb::none() : nb::cast(hit.bit_score));
        score.append(hit.score);
        qlen.append(queries_->length(hit.query));
        slen.append(database_->length(hit.subject));
        query_index.append(hit.query);
        subject_index.append(hit.subject);
        if (alignments) {
          qseq.append(a.query_aligned);
          sseq.append(a.subject_aligned);
          cigar.append(a.cigar);
        }
      }
    }
    nb::dict table;
    table["qseqid"] = qseqid;
    table["sseqid"] = sseqid;
    table["pident"] = pident;
    table["length"] = length;
    table["mismatch"] = mismatch;
    table["gapopen"] = gapopen;
    table["qstart"] = qstart;
    table["qend"] = qend;
    table["sstart"] = sstart;
    table["send"] = send;
    table["evalue"] = evalue;
    table["bitscore"] = bitscore;
    table["score"] = score;
    table["qlen"] = qlen;
    table["slen"] = slen;
    table["query_index"] = query_index;
    table["subject_index"] = subject_index;
    if (alignments) {
      table["qseq"] = qseq;
      table["sseq"] = sseq;
      table["cigar"] = cigar;
    }
    return table;
  }

  std::string tabular(const std::string& outfmt) const {
    const align::TabularFormat format = align::parse_outfmt(outfmt);
    std::ostringstream out;
    if (format.comments) {
      align::write_tabular_commented(out, hits_, *queries_, *database_, format.columns, "trellis align search",
                                     "database");
    } else {
      align::write_tabular(out, hits_, *queries_, *database_, format.columns);
    }
    return out.str();
  }

  std::string json() const {
    std::ostringstream out;
    align::write_json(out, hits_, *queries_, *database_);
    return out.str();
  }

  std::string pairwise() const {
    std::ostringstream out;
    align::write_pairwise(out, hits_, *queries_, *database_, scoring_);
    return out.str();
  }

 private:
  std::shared_ptr<const SequenceSet> queries_;
  std::shared_ptr<const SequenceSet> database_;
  align::Scoring scoring_;
  std::vector<std::vector<align::Hit>> hits_;
};

// Sequences held by Python; shared with the hits that refer to them.
struct Sequences {
  std::shared_ptr<const SequenceSet> set;
};

// Queries searched this many at a time between progress reports; on cuda a
// search keeps up to four queries on the device at once, so a chunk of 64
// keeps that overlap.
constexpr std::size_t kQueriesPerReport = 64;

SequenceSet slice(const SequenceSet& set, std::size_t begin, std::size_t end) {
  SequenceSet part;
  for (std::size_t i = begin; i < end; ++i) part.add(set.id(i), set.description(i), set.residues(i));
  return part;
}

// The database is prepared once (on cuda: uploaded) and the queries are
// searched in chunks; hits do not depend on which queries share a call, so
// the result equals one search of them all. Between chunks the GIL is taken
// back to report progress(done, total) and to notice Ctrl-C.
SearchHits search(const Sequences& queries, const Sequences& database, const std::string& matrix, int gap_open,
                  int gap_extend, int top, double max_evalue, const std::string& backend, const std::string& statistics,
                  std::optional<std::int64_t> database_size, nb::object progress) {
  align::SearchOptions options;
  options.top = top;
  options.max_evalue = max_evalue;
  options.backend = parse_backend(backend);
  options.statistics = statistics_from(statistics);
  options.database_size = database_size;
  align::validate(options);
  align::Scoring scoring = scoring_from(matrix, gap_open, gap_extend);
  if (database.set->empty()) throw UsageError("the database holds no sequences");
  const SequenceSet& all = *queries.set;
  std::vector<std::vector<align::Hit>> hits;
  {
    nb::gil_scoped_release release;
    align::SubjectScorer scorer(*database.set, scoring, options.backend);
    for (std::size_t begin = 0; begin < all.size(); begin += kQueriesPerReport) {
      const std::size_t end = std::min(all.size(), begin + kQueriesPerReport);
      const bool whole = begin == 0 && end == all.size();
      const SequenceSet part = whole ? SequenceSet() : slice(all, begin, end);
      std::vector<std::vector<align::Hit>> found =
          align::search(whole ? all : part, *database.set, scoring, scorer, options);
      for (auto& per_query : found) {
        for (align::Hit& hit : per_query) hit.query += begin;
        hits.push_back(std::move(per_query));
      }
      nb::gil_scoped_acquire acquire;
      if (PyErr_CheckSignals() != 0) throw nb::python_error();  // Ctrl-C
      if (!progress.is_none()) progress(end, all.size());
    }
  }
  return SearchHits(queries.set, database.set, std::move(scoring), std::move(hits));
}

}  // namespace

void bind_align(nb::module_& m) {
  nb::class_<Sequences>(m, "SequenceSet", "Protein sequences (encoded, packed end to end)")
      .def("__len__", [](const Sequences& s) { return s.set->size(); })
      .def_prop_ro("ids",
                   [](const Sequences& s) {
                     std::vector<std::string> ids;
                     for (std::size_t i = 0; i < s.set->size(); ++i) ids.push_back(s.set->id(i));
                     return ids;
                   })
      .def_prop_ro("lengths",
                   [](const Sequences& s) {
                     std::vector<std::int64_t> lengths;
                     for (std::size_t i = 0; i < s.set->size(); ++i) lengths.push_back(s.set->length(i));
                     return lengths;
                   })
      .def_prop_ro("total_residues", [](const Sequences& s) { return s.set->total_residues(); })
      .def(
          "sequence",
          [](const Sequences& s, std::size_t i) {
            if (i >= s.set->size()) throw nb::index_error();
            return align::decode_protein(s.set->residues(i));
          },
          nb::arg("index"));
  m.def(
      "read_sequences",
      [](const std::string& path) {
        nb::gil_scoped_release release;
        return Sequences{std::make_shared<const SequenceSet>(align::read_sequences(path))};
      },
      nb::arg("path"), "FASTA, FASTA.gz or a prepared database (trellis align makedb).");
  m.def(
      "sequences",
      [](const std::vector<std::string>& ids, const std::vector<std::string>& descriptions,
         const std::vector<std::string>& letters) {
        return Sequences{std::make_shared<const SequenceSet>(sequences_from(ids, descriptions, letters))};
      },
      nb::arg("ids"), nb::arg("descriptions"), nb::arg("sequences"));
  m.def(
      "write_database",
      [](const Sequences& s, const std::string& path) {
        nb::gil_scoped_release release;
        align::write_database(*s.set, path);
      },
      nb::arg("sequences"), nb::arg("path"), "A prepared database file (what trellis align makedb writes).");

  nb::class_<SearchHits>(m, "SearchHits", "The hits of a search, per query in rank order")
      .def("__len__", &SearchHits::size)
      .def("columns", &SearchHits::columns, nb::arg("alignments"))
      .def("tabular", &SearchHits::tabular, nb::arg("outfmt") = "6",
           "BLAST tabular text as trellis align search --outfmt writes it")
      .def("json", &SearchHits::json)
      .def("pairwise", &SearchHits::pairwise);
  m.def("search", &search, nb::arg("queries"), nb::arg("database"), nb::arg("matrix"), nb::arg("gap_open"),
        nb::arg("gap_extend"), nb::arg("top"), nb::arg("max_evalue"), nb::arg("backend"), nb::arg("statistics"),
        nb::arg("database_size").none(), nb::arg("progress").none());
}

}  // namespace trellis::python
