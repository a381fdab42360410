// A small results table for benchmarks and reports, printed as Markdown for
// people and as JSON for scripts.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace trellis {

class Table {
 public:
  // A cell is text, an integer, or a number printed with `precision` digits
  // after the point, in fixed or scientific notation (NaN prints as "-" in
  // Markdown and null in JSON, for "not measured").
  struct Number {
    double value;
    int precision;
    bool scientific = false;
  };
  using Cell = std::variant<std::string, std::int64_t, Number>;

  explicit Table(std::vector<std::string> columns);

  void add_row(std::vector<Cell> cells);  // throws Error on a width mismatch

  const std::vector<std::string>& columns() const noexcept { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const noexcept { return rows_; }

  // Pipe table with aligned columns; numbers right-aligned.
  std::string to_markdown() const;
  // Array of objects keyed by column name.
  std::string to_json(int indent = 2) const;

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<Cell>> rows_;
};

inline Table::Cell number(double value, int precision) { return Table::Number{value, precision, false}; }
inline Table::Cell scientific(double value, int precision) { return Table::Number{value, precision, true}; }

}  // namespace trellis
