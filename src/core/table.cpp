#include "trellis/core/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "trellis/core/error.hpp"

namespace trellis {
namespace {

std::string render(const Table::Cell& cell) {
  if (const auto* text = std::get_if<std::string>(&cell)) return *text;
  if (const auto* integer = std::get_if<std::int64_t>(&cell)) return std::to_string(*integer);
  const auto& num = std::get<Table::Number>(cell);
  if (std::isnan(num.value)) return "-";
  if (num.scientific) return fmt::format("{:.{}e}", num.value, num.precision);
  return fmt::format("{:.{}f}", num.value, num.precision);
}

bool is_numeric(const Table::Cell& cell) { return !std::holds_alternative<std::string>(cell); }

}  // namespace

Table::Table(std::vector<std::string> columns) : columns_(std::move(columns)) {}

void Table::add_row(std::vector<Cell> cells) {
  if (cells.size() != columns_.size()) {
    throw Error(fmt::format("table row has {} cells for {} columns", cells.size(), columns_.size()));
  }
  rows_.push_back(std::move(cells));
}

namespace {

// A '|' inside a cell would end it: Markdown takes "\|" for the character.
std::string markdown_cell(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string Table::to_markdown() const {
  std::vector<std::size_t> width(columns_.size());
  std::vector<bool> numeric(columns_.size(), !rows_.empty());
  for (std::size_t c = 0; c < columns_.size(); ++c) width[c] = std::max<std::size_t>(3, columns_[c].size());
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      width[c] = std::max(width[c], markdown_cell(render(row[c])).size());
      numeric[c] = numeric[c] && is_numeric(row[c]);
    }
  }
  auto line = [&](auto cell_text) {
    std::string out = "|";
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      std::string text = cell_text(c);
      out += numeric[c] ? fmt::format(" {:>{}} |", text, width[c]) : fmt::format(" {:<{}} |", text, width[c]);
    }
    return out + "\n";
  };
  std::string out = line([&](std::size_t c) { return columns_[c]; });
  out += line([&](std::size_t c) {
    std::string rule(width[c], '-');
    if (numeric[c]) rule.back() = ':';
    return rule;
  });
  for (const auto& row : rows_) out += line([&](std::size_t c) { return markdown_cell(render(row[c])); });
  return out;
}

std::string Table::to_json(int indent) const {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& row : rows_) {
    nlohmann::json object = nlohmann::json::object();
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const Cell& cell = row[c];
      if (const auto* text = std::get_if<std::string>(&cell)) {
        object[columns_[c]] = *text;
      } else if (const auto* integer = std::get_if<std::int64_t>(&cell)) {
        object[columns_[c]] = *integer;
      } else {
        double value = std::get<Number>(cell).value;
        object[columns_[c]] = std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
      }
    }
    array.push_back(std::move(object));
  }
  return array.dump(indent) + "\n";
}

}  // namespace trellis
