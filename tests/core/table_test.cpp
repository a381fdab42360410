#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "trellis/core/error.hpp"
#include "trellis/core/table.hpp"

namespace trellis {
namespace {

Table example() {
  Table table({"backend", "time ms", "nnz", "error"});
  table.add_row({std::string("cuda"), number(0.6504, 3), std::int64_t{117}, scientific(2.5e-17, 1)});
  table.add_row({std::string("reference"), number(12.25, 3), std::int64_t{117}, number(NAN, 1)});
  return table;
}

TEST(Table, MarkdownAlignsColumnsAndRightAlignsNumbers) {
  EXPECT_EQ(example().to_markdown(),
            "| backend   | time ms | nnz |   error |\n"
            "| --------- | ------: | --: | ------: |\n"
            "| cuda      |   0.650 | 117 | 2.5e-17 |\n"
            "| reference |  12.250 | 117 |       - |\n");
}

TEST(Table, MarkdownEscapesPipesInCellsButNotInJson) {
  Table table({"query", "length"});
  table.add_row({std::string("tr|F7XRA1|F7XRA1_TREPU"), std::int64_t{144}});
  EXPECT_EQ(table.to_markdown(),
            "| query                    | length |\n"
            "| ------------------------ | -----: |\n"
            "| tr\\|F7XRA1\\|F7XRA1_TREPU |    144 |\n");
  EXPECT_EQ(nlohmann::json::parse(table.to_json())[0]["query"], "tr|F7XRA1|F7XRA1_TREPU");
}

TEST(Table, JsonKeepsTypesAndNullsForUnmeasured) {
  auto json = nlohmann::json::parse(example().to_json());
  ASSERT_EQ(json.size(), 2u);
  EXPECT_EQ(json[0]["backend"], "cuda");
  EXPECT_DOUBLE_EQ(json[0]["time ms"].get<double>(), 0.6504);
  EXPECT_EQ(json[0]["nnz"].get<std::int64_t>(), 117);
  EXPECT_TRUE(json[1]["error"].is_null());
}

TEST(Table, RejectsRowsOfTheWrongWidth) {
  Table table({"a", "b"});
  EXPECT_THROW(table.add_row({std::string("x")}), Error);
}

}  // namespace
}  // namespace trellis
