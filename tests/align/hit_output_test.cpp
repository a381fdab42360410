// Hit output: tabular columns and number formats, the pairwise layout, JSON.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "trellis/align/hit_output.hpp"
#include "trellis/align/statistics.hpp"
#include "trellis/core/error.hpp"

namespace trellis::align {
namespace {

Scoring blosum62() { return Scoring(builtin_matrix("BLOSUM62"), {11, 1}); }

SequenceSet one_sequence(const std::string& id, const std::string& description, const std::string& letters) {
  SequenceSet set;
  set.add(id, description, encode_protein(letters));
  return set;
}

TEST(HitOutput, ParsesColumnLists) {
  const auto standard = standard_columns();
  EXPECT_EQ(parse_columns("std"), std::vector<TabularField>(standard.begin(), standard.end()));
  EXPECT_EQ(standard.size(), 12u);
  EXPECT_EQ(parse_columns("qseqid,sseqid score"),
            (std::vector<TabularField>{TabularField::qseqid, TabularField::sseqid, TabularField::score}));
  EXPECT_EQ(parse_columns(" std, stitle ").size(), 13u);
  EXPECT_EQ(parse_columns("std").back(), TabularField::bitscore);
  for (const TabularField field : parse_columns("std score qlen slen nident gaps qseq sseq stitle")) {
    EXPECT_EQ(parse_columns(field_name(field)), std::vector<TabularField>{field});
  }
}

TEST(HitOutput, UnknownColumnsAreNamed) {
  try {
    parse_columns("qseqid,pidnet");
    FAIL() << "an unknown column was accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("'pidnet'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("bitscore"), std::string::npos) << error.what();
  }
  EXPECT_THROW(parse_columns(""), UsageError);
  EXPECT_THROW(parse_columns(" , "), UsageError);
  EXPECT_THROW(parse_columns("STD"), UsageError);  // BLAST's names are lower case
}

TEST(HitOutput, NumbersAsBlastPrintsThem) {
  EXPECT_EQ(format_evalue(0.0), "0.0");
  EXPECT_EQ(format_evalue(1e-200), "0.0");
  EXPECT_EQ(format_evalue(2.5e-105), "2.50e-105");
  EXPECT_EQ(format_evalue(3.1e-42), "3.10e-42");
  EXPECT_EQ(format_evalue(1e-50), "1.00e-50");
  EXPECT_EQ(format_evalue(0.00085), "8.50e-04");
  EXPECT_EQ(format_evalue(0.05), "0.050");
  EXPECT_EQ(format_evalue(0.5), "0.50");
  EXPECT_EQ(format_evalue(5.25), "5.2");
  EXPECT_EQ(format_evalue(123.4), "123");
  EXPECT_EQ(format_evalue(std::nullopt), "-");
  EXPECT_EQ(format_bit_score(45.43), "45.4");
  EXPECT_EQ(format_bit_score(99.9), "99.9");
  EXPECT_EQ(format_bit_score(231.9), "231");  // truncated, as BLAST does
  EXPECT_EQ(format_bit_score(123456.0), "1.235e+05");
  EXPECT_EQ(format_bit_score(std::numeric_limits<double>::quiet_NaN()), "-");
}

TEST(HitOutput, TabularStandardAndExtraColumns) {
  const SequenceSet queries = one_sequence("q1", "the query", "WWWW");
  const SequenceSet database = one_sequence("s1", "first subject", "AWWWWA");
  const auto hits = search(queries, database, blosum62());
  ASSERT_EQ(hits[0].size(), 1u);
  const Hit& hit = hits[0][0];

  std::ostringstream standard;
  write_tabular(standard, hits, queries, database, parse_columns("std"));
  EXPECT_EQ(standard.str(), "q1\ts1\t100.000\t4\t0\t0\t1\t4\t2\t5\t" + format_evalue(hit.evalue) + "\t" +
                                format_bit_score(hit.bit_score) + "\n");
  // blastp's E-value for the pair in a database of its 6 residues, and
  // (0.267 * 44 - ln 0.041) / ln 2.
  EXPECT_EQ(format_evalue(hit.evalue),
            format_evalue(spouge_evalue(44, *gapped_parameters("BLOSUM62", {11, 1}), 4, 6, 6)));
  EXPECT_EQ(format_bit_score(hit.bit_score), "21.6");

  std::ostringstream extras;
  write_tabular(extras, hits, queries, database, parse_columns("score qlen slen nident gaps qseq sseq stitle"));
  EXPECT_EQ(extras.str(), "44\t4\t6\t4\t0\tWWWW\tWWWW\tfirst subject\n");

  std::ostringstream no_title;
  write_tabular(no_title, hits, queries, one_sequence("s1", "", "AWWWWA"), parse_columns("sseqid,stitle"));
  EXPECT_EQ(no_title.str(), "s1\tN/A\n");

  // Without statistics the E-value and bit score columns say so.
  const Scoring unpublished(builtin_matrix("BLOSUM62"), {5, 5});
  EXPECT_THROW(search(queries, database, unpublished), UsageError);  // as blastp refuses the pair
  SearchOptions no_statistics;
  no_statistics.statistics = EvalueStatistics::none;
  std::ostringstream dashes;
  write_tabular(dashes, search(queries, database, unpublished, no_statistics), queries, database,
                parse_columns("evalue bitscore"));
  EXPECT_EQ(dashes.str(), "-\t-\n");
}

// A hand-made hit: query MKVLA against subject GMRVQLA, one gap in the query.
std::vector<std::vector<Hit>> hand_made_hit() {
  Hit hit;
  hit.score = 20;
  hit.bit_score = 30.04;
  hit.evalue = 0.001;
  Alignment& a = hit.alignment;
  a.score = 20;
  a.query_start = 1;
  a.query_end = 5;
  a.subject_start = 2;
  a.subject_end = 7;
  a.length = 6;
  a.identities = 4;
  a.mismatches = 1;
  a.positives = 5;
  a.gap_opens = 1;
  a.gaps = 1;
  a.query_aligned = "MKV-LA";
  a.subject_aligned = "MRVQLA";
  a.cigar = "3M1D2M";
  return {{hit}};
}

TEST(HitOutput, PairwiseLayoutOfAShortAlignment) {
  const SequenceSet queries = one_sequence("q0", "test query", "MKVLA");
  const SequenceSet database = one_sequence("s0", "a subject", "GMRVQLA");
  std::ostringstream out;
  write_pairwise(out, hand_made_hit(), queries, database, blosum62());
  // K/R scores 2 in BLOSUM62: a positive, not an identity.
  EXPECT_EQ(out.str(),
            "Query= q0 test query\n"
            "\n"
            "Length=5\n"
            "\n"
            ">s0 a subject\n"
            "Length=7\n"
            "\n"
            " Score = 30.0 bits (20),  Expect = 0.001\n"
            " Identities = 4/6 (67%), Positives = 5/6 (83%), Gaps = 1/6 (17%)\n"
            "\n"
            "Query  1  MKV-LA  5\n"
            "          M+V LA\n"
            "Sbjct  2  MRVQLA  7\n"
            "\n"
            "\n"
            "\n");
}

TEST(HitOutput, PairwiseBlocksOfSixtyColumns) {
  std::string letters;
  for (int i = 0; i < 130; ++i) letters += "ACDEFGHIKLMNPQRSTVWY"[i % 20];
  const SequenceSet queries = one_sequence("q", "", letters);
  const SequenceSet database = one_sequence("s", "", letters);
  std::ostringstream out;
  write_pairwise(out, search(queries, database, blosum62()), queries, database, blosum62());
  std::vector<std::string> query_lines;
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("Query  ")) query_lines.push_back(line);
  }
  ASSERT_EQ(query_lines.size(), 3u);
  EXPECT_EQ(query_lines[0], "Query  1    " + letters.substr(0, 60) + "  60");
  EXPECT_EQ(query_lines[1], "Query  61   " + letters.substr(60, 60) + "  120");
  EXPECT_EQ(query_lines[2], "Query  121  " + letters.substr(120) + "  130");
  EXPECT_NE(out.str().find("Identities = 130/130 (100%), Positives = 130/130 (100%), Gaps = 0/130 (0%)"),
            std::string::npos);
}

TEST(HitOutput, PairwiseSaysWhenAQueryHasNoHits) {
  const SequenceSet queries = one_sequence("lonely", "", "GGGG");
  const SequenceSet database = one_sequence("s", "", "WWWW");
  std::ostringstream out;
  write_pairwise(out, search(queries, database, blosum62()), queries, database, blosum62());
  EXPECT_NE(out.str().find("***** No hits found *****"), std::string::npos);
}

TEST(HitOutput, JsonParses) {
  SequenceSet queries = one_sequence("q1", "first", "WWWW");
  queries.add("q2", "", encode_protein("GGGG"));
  const SequenceSet database = one_sequence("s1", "first subject", "AWWWWA");
  std::ostringstream out;
  write_json(out, search(queries, database, blosum62()), queries, database);
  const nlohmann::json parsed = nlohmann::json::parse(out.str());
  ASSERT_TRUE(parsed.is_array());
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0]["query"], "q1");
  EXPECT_EQ(parsed[0]["query_length"], 4);
  ASSERT_EQ(parsed[0]["hits"].size(), 1u);
  const nlohmann::json& hit = parsed[0]["hits"][0];
  EXPECT_EQ(hit["subject"], "s1");
  EXPECT_EQ(hit["score"], 44);
  EXPECT_EQ(hit["subject_start"], 2);
  EXPECT_EQ(hit["cigar"], "4M");
  EXPECT_TRUE(hit["evalue"].is_number());
  EXPECT_TRUE(parsed[1]["hits"].empty());

  std::ostringstream unpublished;
  SearchOptions no_statistics;
  no_statistics.statistics = EvalueStatistics::none;
  write_json(unpublished, search(queries, database, blosum62(), no_statistics), queries, database);
  const nlohmann::json without = nlohmann::json::parse(unpublished.str());
  EXPECT_TRUE(without[0]["hits"][0]["evalue"].is_null());
  EXPECT_TRUE(without[0]["hits"][0]["bit_score"].is_null());
}

}  // namespace
}  // namespace trellis::align
