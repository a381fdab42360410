// A small results table for benchmarks and reports, printed as Markdown for
// people and as JSON for scripts.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace trellis {

// A table of named columns and rows of cells.
class Table {
 public:
  // A cell is text, an integer, or a number printed with `precision` digits
  // after the point, in fixed or scientific notation (NaN prints as "-" in
  // Markdown and null in JSON, for "not measured").
  struct Number {
    double value;             // the number
    int precision;            // digits after the point
    bool scientific = false;  // scientific instead of fixed notation
  };
  // One cell: text, an integer or a number.
  using Cell = std::variant<std::string, std::int64_t, Number>;

  // An empty table with these column names.
  explicit Table(std::vector<std::string> columns);

  void add_row(std::vector<Cell> cells);  // throws Error on a width mismatch

  // The column names.
  const std::vector<std::string>& columns() const noexcept { return columns_; }
  // The rows, in the order added.
  const std::vector<std::vector<Cell>>& rows() const noexcept { return rows_; }

  // Pipe table with aligned columns; numbers right-aligned.
  std::string to_markdown() const;
  // Array of objects keyed by column name.
  std::string to_json(int indent = 2) const;

 private:
  std::vector<std::string> columns_;
  std::vector<std::vector<Cell>> rows_;
};

// A number cell in fixed notation with precision digits after the point.
inline Table::Cell number(double value, int precision) { return Table::Number{value, precision, false}; }
// A number cell in scientific notation with precision digits after the point.
inline Table::Cell scientific(double value, int precision) { return Table::Number{value, precision, true}; }

}  // namespace trellis
