// Tabular, pairwise and JSON renderings of search hits.
#include "trellis/align/hit_output.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

// Each column's name and, for outfmt 7's "# Fields:" line, BLAST+'s label
// (tabular.cpp, CBlastTabularInfo::PrintFieldNames).
struct FieldName {
  TabularField field;
  std::string_view name;
  std::string_view label;
};

constexpr std::array kFieldNames = std::to_array<FieldName>({
    {TabularField::qseqid, "qseqid", "query id"},
    {TabularField::qaccver, "qaccver", "query acc.ver"},
    {TabularField::sseqid, "sseqid", "subject id"},
    {TabularField::saccver, "saccver", "subject acc.ver"},
    {TabularField::pident, "pident", "% identity"},
    {TabularField::length, "length", "alignment length"},
    {TabularField::mismatch, "mismatch", "mismatches"},
    {TabularField::gapopen, "gapopen", "gap opens"},
    {TabularField::qstart, "qstart", "q. start"},
    {TabularField::qend, "qend", "q. end"},
    {TabularField::sstart, "sstart", "s. start"},
    {TabularField::send, "send", "s. end"},
    {TabularField::evalue, "evalue", "evalue"},
    {TabularField::bitscore, "bitscore", "bit score"},
    {TabularField::score, "score", "score"},
    {TabularField::qlen, "qlen", "query length"},
    {TabularField::slen, "slen", "subject length"},
    {TabularField::nident, "nident", "identical"},
    {TabularField::positive, "positive", "positives"},
    {TabularField::ppos, "ppos", "% positives"},
    {TabularField::gaps, "gaps", "gaps"},
    {TabularField::qcovs, "qcovs", "% query coverage per subject"},
    {TabularField::qcovhsp, "qcovhsp", "% query coverage per hsp"},
    {TabularField::qseq, "qseq", "query seq"},
    {TabularField::sseq, "sseq", "subject seq"},
    {TabularField::stitle, "stitle", "subject title"},
});

// BLAST+ 2.12's std names the ids acc.ver; without parsed NCBI ids (as
// here) they print the same as qseqid and sseqid.
constexpr std::array kStandardColumns = {
    TabularField::qaccver,  TabularField::saccver, TabularField::pident, TabularField::length,
    TabularField::mismatch, TabularField::gapopen, TabularField::qstart, TabularField::qend,
    TabularField::sstart,   TabularField::send,    TabularField::evalue, TabularField::bitscore,
};

std::string known_field_names() {
  std::string names = "std";
  for (const FieldName& entry : kFieldNames) names += fmt::format(", {}", entry.name);
  return names;
}

// BLAST's query coverage (blastfmtutil.cpp, tabular.cpp): the percentage
// of the query inside the alignment, rounded to the nearest whole percent
// below 99 and truncated from there, so that 100 means all of it.
std::int64_t query_coverage(const Alignment& a, std::int64_t query_length) {
  if (query_length <= 0) return 0;
  double percent = 100.0 * static_cast<double>(a.query_end - a.query_start + 1) / static_cast<double>(query_length);
  if (percent < 99) percent += 0.5;
  return static_cast<std::int64_t>(percent);
}

double percent_of_columns(std::int64_t count, std::int64_t columns) {
  return columns == 0 ? 0.0 : 100.0 * static_cast<double>(count) / static_cast<double>(columns);
}

std::string tabular_value(TabularField field, const Hit& hit, const SequenceSet& queries, const SequenceSet& database) {
  const Alignment& a = hit.alignment;
  switch (field) {
    case TabularField::qseqid:
    case TabularField::qaccver:
      return queries.id(hit.query);
    case TabularField::sseqid:
    case TabularField::saccver:
      return database.id(hit.subject);
    case TabularField::pident:
      return fmt::format("{:.3f}", a.percent_identity());
    case TabularField::length:
      return fmt::format("{}", a.length);
    case TabularField::mismatch:
      return fmt::format("{}", a.mismatches);
    case TabularField::gapopen:
      return fmt::format("{}", a.gap_opens);
    case TabularField::qstart:
      return fmt::format("{}", a.query_start);
    case TabularField::qend:
      return fmt::format("{}", a.query_end);
    case TabularField::sstart:
      return fmt::format("{}", a.subject_start);
    case TabularField::send:
      return fmt::format("{}", a.subject_end);
    case TabularField::evalue:
      return format_evalue(hit.evalue);
    case TabularField::bitscore:
      return format_bit_score(hit.bit_score);
    case TabularField::score:
      return fmt::format("{}", hit.score);
    case TabularField::qlen:
      return fmt::format("{}", queries.length(hit.query));
    case TabularField::slen:
      return fmt::format("{}", database.length(hit.subject));
    case TabularField::nident:
      return fmt::format("{}", a.identities);
    case TabularField::positive:
      return fmt::format("{}", a.positives);
    case TabularField::ppos:
      return fmt::format("{:.2f}", percent_of_columns(a.positives, a.length));
    case TabularField::gaps:
      return fmt::format("{}", a.gaps);
    // One alignment per subject: its coverage is the subject's.
    case TabularField::qcovs:
    case TabularField::qcovhsp:
      return fmt::format("{}", query_coverage(a, queries.length(hit.query)));
    case TabularField::qseq:
      return a.query_aligned;
    case TabularField::sseq:
      return a.subject_aligned;
    case TabularField::stitle: {
      const std::string& description = database.description(hit.subject);
      return description.empty() ? "N/A" : description;
    }
  }
  return "";
}

std::string_view field_label(TabularField field) noexcept {
  for (const FieldName& entry : kFieldNames) {
    if (entry.field == field) return entry.label;
  }
  return "?";
}

void write_tabular_lines(std::ostream& out, const std::vector<Hit>& query_hits, const SequenceSet& queries,
                         const SequenceSet& database, std::span<const TabularField> columns) {
  std::string line;
  for (const Hit& hit : query_hits) {
    line.clear();
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (c > 0) line += '\t';
      line += tabular_value(columns[c], hit, queries, database);
    }
    line += '\n';
    out << line;
  }
}

// BLAST's rounding of the percentages in pairwise output: to the nearest
// whole percent, but never 100% unless every column counts. Kept as the
// truncation of 0.5 + percent, the rounding the BLAST+ comparisons pass
// with (std::lround differs where 0.5 + percent rounds up to a whole).
std::int64_t percent_of(std::int64_t part, std::int64_t whole) {
  if (whole <= 0) return 0;
  if (part == whole) return 100;
  const double percent = 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  return std::min<std::int64_t>(99, static_cast<std::int64_t>(0.5 + percent));  // NOLINT(bugprone-incorrect-roundings)
}

std::string title_of(const SequenceSet& set, std::size_t index) {
  const std::string& description = set.description(index);
  return description.empty() ? set.id(index) : set.id(index) + " " + description;
}

bool is_positive_pair(char query_letter, char subject_letter, const Scoring& scoring) {
  if (query_letter == '-' || subject_letter == '-') return false;
  return scoring.matrix.score(encode_residue(query_letter), encode_residue(subject_letter)) > 0;
}

constexpr std::size_t kPairwiseBlockColumns = 60;

void write_pairwise_hit(std::string& text, const Hit& hit, const SequenceSet& database, const Scoring& scoring) {
  const Alignment& a = hit.alignment;
  const std::string& query_row = a.query_aligned;
  const std::string& subject_row = a.subject_aligned;
  const std::int64_t positives = a.positives;

  fmt::format_to(std::back_inserter(text), ">{}\nLength={}\n\n", title_of(database, hit.subject),
                 database.length(hit.subject));
  fmt::format_to(std::back_inserter(text), " Score = {} bits ({}),  Expect = {}\n", format_bit_score(hit.bit_score),
                 hit.score, format_evalue(hit.evalue));
  fmt::format_to(std::back_inserter(text), " Identities = {}/{} ({}%), Positives = {}/{} ({}%), Gaps = {}/{} ({}%)\n\n",
                 a.identities, a.length, percent_of(a.identities, a.length), positives, a.length,
                 percent_of(positives, a.length), a.gaps, a.length, percent_of(a.gaps, a.length));

  // Coordinates are padded to one width so the residue columns line up.
  const std::size_t width = fmt::formatted_size("{}", std::max(a.query_end, a.subject_end));
  std::int64_t query_next = a.query_start;
  std::int64_t subject_next = a.subject_start;
  for (std::size_t begin = 0; begin < query_row.size(); begin += kPairwiseBlockColumns) {
    const std::size_t end = std::min(query_row.size(), begin + kPairwiseBlockColumns);
    const std::string_view query_block = std::string_view(query_row).substr(begin, end - begin);
    const std::string_view subject_block = std::string_view(subject_row).substr(begin, end - begin);
    std::string middle(query_block.size(), ' ');
    for (std::size_t i = 0; i < query_block.size(); ++i) {
      const char q = query_block[i];
      const char s = subject_block[i];
      if (q == '-' || s == '-') continue;
      if (encode_residue(q) == encode_residue(s)) {
        middle[i] = q;
      } else if (is_positive_pair(q, s, scoring)) {
        middle[i] = '+';
      }
    }
    const auto residues = [](std::string_view block) {
      return static_cast<std::int64_t>(block.size()) - std::count(block.begin(), block.end(), '-');
    };
    // A block of gaps only ends one before it starts: it holds no residue.
    const std::int64_t query_last = query_next + residues(query_block) - 1;
    const std::int64_t subject_last = subject_next + residues(subject_block) - 1;
    fmt::format_to(std::back_inserter(text), "Query  {:<{}}  {}  {}\n", query_next, width, query_block, query_last);
    fmt::format_to(std::back_inserter(text), "{:{}}{}\n", "", width + 9, middle);
    fmt::format_to(std::back_inserter(text), "Sbjct  {:<{}}  {}  {}\n\n", subject_next, width, subject_block,
                   subject_last);
    query_next = query_last + 1;
    subject_next = subject_last + 1;
  }
  text += '\n';
}

}  // namespace

std::span<const TabularField> standard_columns() noexcept { return kStandardColumns; }

std::string_view field_name(TabularField field) noexcept {
  for (const FieldName& entry : kFieldNames) {
    if (entry.field == field) return entry.name;
  }
  return "?";
}

std::vector<TabularField> parse_columns(std::string_view list) {
  std::vector<TabularField> columns;
  constexpr std::string_view kSeparators = ", \t";
  std::size_t position = 0;
  while (position < list.size()) {
    const std::size_t begin = list.find_first_not_of(kSeparators, position);
    if (begin == std::string_view::npos) break;
    const std::size_t end = std::min(list.size(), list.find_first_of(kSeparators, begin));
    const std::string_view word = list.substr(begin, end - begin);
    position = end;
    if (word == "std") {
      columns.insert(columns.end(), kStandardColumns.begin(), kStandardColumns.end());
      continue;
    }
    const auto found = std::find_if(kFieldNames.begin(), kFieldNames.end(),
                                    [&](const FieldName& entry) { return entry.name == word; });
    if (found == kFieldNames.end()) {
      throw UsageError(fmt::format("unknown output column '{}': the columns are {}", word, known_field_names()));
    }
    columns.push_back(found->field);
  }
  if (columns.empty()) {
    throw UsageError(fmt::format("no output columns given: the columns are {}", known_field_names()));
  }
  return columns;
}

std::string format_evalue(std::optional<double> evalue) {
  if (!evalue || std::isnan(*evalue)) return "-";
  const double e = *evalue;
  if (e < 1.0e-180) return "0.0";
  if (e < 0.0009) return fmt::format("{:.2e}", e);
  if (e < 0.1) return fmt::format("{:.3f}", e);
  if (e < 1.0) return fmt::format("{:.2f}", e);
  if (e < 10.0) return fmt::format("{:.1f}", e);
  return fmt::format("{:.0f}", e);
}

std::string format_bit_score(double bit_score) {
  if (std::isnan(bit_score)) return "-";
  if (bit_score > 99999) return fmt::format("{:.3e}", bit_score);
  if (bit_score > 99.9) return fmt::format("{}", static_cast<long long>(bit_score));
  return fmt::format("{:.1f}", bit_score);
}

TabularFormat parse_outfmt(std::string_view spec) {
  const std::size_t begin = spec.find_first_not_of(" \t");
  const std::string_view rest = begin == std::string_view::npos ? std::string_view() : spec.substr(begin);
  const std::string_view number = rest.substr(0, rest.find_first_of(" \t"));
  if (number != "6" && number != "7") {
    throw UsageError(
        fmt::format("--outfmt '{}' is not supported: it takes 6 (tabular) or 7 (tabular with comment "
                    "lines), optionally followed by column names",
                    spec));
  }
  TabularFormat format;
  format.comments = number == "7";
  const std::string_view list = rest.substr(number.size());
  if (list.find_first_not_of(" \t") == std::string_view::npos) {
    format.columns.assign(kStandardColumns.begin(), kStandardColumns.end());
  } else {
    format.columns = parse_columns(list);
  }
  return format;
}

void write_tabular(std::ostream& out, const std::vector<std::vector<Hit>>& hits, const SequenceSet& queries,
                   const SequenceSet& database, std::span<const TabularField> columns) {
  for (const std::vector<Hit>& query_hits : hits) write_tabular_lines(out, query_hits, queries, database, columns);
}

void write_tabular_commented(std::ostream& out, const std::vector<std::vector<Hit>>& hits, const SequenceSet& queries,
                             const SequenceSet& database, std::span<const TabularField> columns,
                             std::string_view program, std::string_view database_name) {
  std::string fields;
  for (const TabularField field : columns) {
    if (!fields.empty()) fields += ", ";
    fields += field_label(field);
  }
  for (std::size_t q = 0; q < queries.size() && q < hits.size(); ++q) {
    std::string header =
        fmt::format("# {}\n# Query: {}\n# Database: {}\n", program, title_of(queries, q), database_name);
    // BLAST names the fields only when there are hits.
    if (!hits[q].empty()) header += fmt::format("# Fields: {}\n", fields);
    header += fmt::format("# {} hits found\n", hits[q].size());
    out << header;
    write_tabular_lines(out, hits[q], queries, database, columns);
  }
  // The closing line is BLAST's own words: tools that read outfmt 7 wait for it.
  out << fmt::format("# BLAST processed {} queries\n", queries.size());
}

void write_pairwise(std::ostream& out, const std::vector<std::vector<Hit>>& hits, const SequenceSet& queries,
                    const SequenceSet& database, const Scoring& scoring) {
  std::string text;
  for (std::size_t q = 0; q < queries.size() && q < hits.size(); ++q) {
    text.clear();
    fmt::format_to(std::back_inserter(text), "Query= {}\n\nLength={}\n\n", title_of(queries, q), queries.length(q));
    if (hits[q].empty()) text += "***** No hits found *****\n\n";
    for (const Hit& hit : hits[q]) write_pairwise_hit(text, hit, database, scoring);
    text += '\n';
    out << text;
  }
}

void write_json(std::ostream& out, const std::vector<std::vector<Hit>>& hits, const SequenceSet& queries,
                const SequenceSet& database) {
  using Json = nlohmann::ordered_json;
  Json result = Json::array();
  for (std::size_t q = 0; q < queries.size() && q < hits.size(); ++q) {
    Json query_hits = Json::array();
    for (const Hit& hit : hits[q]) {
      const Alignment& a = hit.alignment;
      Json entry;
      entry["subject"] = database.id(hit.subject);
      entry["subject_description"] = database.description(hit.subject);
      entry["subject_length"] = database.length(hit.subject);
      entry["score"] = hit.score;
      entry["bit_score"] = std::isnan(hit.bit_score) ? Json(nullptr) : Json(hit.bit_score);
      entry["evalue"] = hit.evalue ? Json(*hit.evalue) : Json(nullptr);
      entry["percent_identity"] = a.percent_identity();
      entry["length"] = a.length;
      entry["identities"] = a.identities;
      entry["mismatches"] = a.mismatches;
      entry["gap_opens"] = a.gap_opens;
      entry["gaps"] = a.gaps;
      entry["query_start"] = a.query_start;
      entry["query_end"] = a.query_end;
      entry["subject_start"] = a.subject_start;
      entry["subject_end"] = a.subject_end;
      entry["query_aligned"] = a.query_aligned;
      entry["subject_aligned"] = a.subject_aligned;
      entry["cigar"] = a.cigar;
      query_hits.push_back(std::move(entry));
    }
    Json query;
    query["query"] = queries.id(q);
    query["query_description"] = queries.description(q);
    query["query_length"] = queries.length(q);
    query["hits"] = std::move(query_hits);
    result.push_back(std::move(query));
  }
  out << result.dump(2) << '\n';
}

}  // namespace trellis::align
