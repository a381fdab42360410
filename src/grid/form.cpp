// Building forms from operators: the small algebra of form.hpp.
#include "trellis/grid/form.hpp"

#include <algorithm>
#include <string>

#include "trellis/core/error.hpp"

namespace trellis::grid {

TrialTerm Operator::operator()(TrialFunction) const { return TrialTerm{*this}; }
TestTerm Operator::operator()(TestFunction) const { return TestTerm{*this}; }

TrialTerm operator*(const Operator& op, TrialFunction) { return TrialTerm{op}; }
TestTerm operator*(const Operator& op, TestFunction) { return TestTerm{op}; }

TrialTerm operator*(Coefficient c, TrialTerm term) {
  if (c.slot < 0) throw UsageError("coefficient slot must not be negative, got " + std::to_string(c.slot));
  if (term.coefficient >= 0) {
    throw UsageError("a form term takes one coefficient; slots " + std::to_string(term.coefficient) + " and " +
                     std::to_string(c.slot) + " were both applied");
  }
  term.coefficient = c.slot;
  return term;
}
TrialTerm operator*(Coefficient c, TrialFunction u) { return c * (identity() * u); }
TrialTerm operator*(double scale, TrialTerm term) {
  term.scale *= scale;
  return term;
}
TrialTerm operator*(double scale, TrialFunction u) { return scale * (identity() * u); }

TrialGradient operator*(Coefficient c, TrialGradient g) {
  if (c.slot < 0) throw UsageError("coefficient slot must not be negative, got " + std::to_string(c.slot));
  if (g.coefficient >= 0) throw UsageError("a gradient term takes one coefficient");
  g.coefficient = c.slot;
  return g;
}
TrialGradient operator*(double scale, TrialGradient g) {
  g.scale *= scale;
  return g;
}

TrialGradient grad_minus(TrialFunction) { return TrialGradient{false}; }
TestGradient grad_minus(TestFunction) { return TestGradient{false}; }
TrialGradient grad_plus(TrialFunction) { return TrialGradient{true}; }
TestGradient grad_plus(TestFunction) { return TestGradient{true}; }

std::vector<FormTerm> BilinearForm::terms(int dim) const {
  std::vector<FormTerm> all = terms_;
  for (const FormTerm& term : terms_) {
    term.trial.check_axes(dim);
    term.test.check_axes(dim);
    if (term.weight == InnerProduct::plus && (term.axis < 0 || term.axis >= dim)) {
      throw UsageError("inner_plus along axis " + std::to_string(term.axis) + " in a " + std::to_string(dim) +
                       "-D form");
    }
  }
  for (const GradientTerm& g : gradients_) {
    for (int axis = 0; axis < dim; ++axis) {
      FormTerm term;
      term.weight = g.weight;
      term.axis = static_cast<std::int8_t>(axis);
      term.trial = g.trial.forward ? forward_difference(axis) : backward_difference(axis);
      term.test = g.test.forward ? forward_difference(axis) : backward_difference(axis);
      term.coefficient = g.trial.coefficient;
      term.scale = g.trial.scale;
      all.push_back(term);
    }
  }
  return all;
}

std::int32_t BilinearForm::coefficient_slots() const {
  std::int32_t slots = 0;
  for (const FormTerm& term : terms_) slots = std::max(slots, term.coefficient + 1);
  for (const GradientTerm& g : gradients_) slots = std::max(slots, g.trial.coefficient + 1);
  return slots;
}

BilinearForm operator+(BilinearForm a, const BilinearForm& b) {
  a.terms_.insert(a.terms_.end(), b.terms_.begin(), b.terms_.end());
  a.gradients_.insert(a.gradients_.end(), b.gradients_.begin(), b.gradients_.end());
  return a;
}
BilinearForm operator*(double scale, BilinearForm a) {
  for (FormTerm& term : a.terms_) term.scale *= scale;
  for (BilinearForm::GradientTerm& g : a.gradients_) g.trial.scale *= scale;
  return a;
}
BilinearForm operator-(BilinearForm a, const BilinearForm& b) { return std::move(a) + (-1.0 * b); }

namespace {

BilinearForm single(InnerProduct weight, int axis, const TrialTerm& u, const TestTerm& v) {
  FormTerm term;
  term.weight = weight;
  term.axis = static_cast<std::int8_t>(axis);
  term.trial = u.op;
  term.test = v.op;
  term.coefficient = u.coefficient;
  term.scale = u.scale;
  return BilinearForm({term});
}

}  // namespace

BilinearForm inner_h(const TrialTerm& u, const TestTerm& v) { return single(InnerProduct::h, 0, u, v); }
BilinearForm inner_h(TrialFunction u, const TestTerm& v) { return inner_h(identity() * u, v); }
BilinearForm inner_h(const TrialTerm& u, TestFunction v) { return inner_h(u, identity() * v); }
BilinearForm inner_h(TrialFunction u, TestFunction v) { return inner_h(identity() * u, identity() * v); }
BilinearForm inner_plus(const TrialTerm& u, const TestTerm& v, int axis) {
  if (axis < 0 || axis > 2) throw UsageError("inner_plus axis must be 0, 1 or 2, got " + std::to_string(axis));
  return single(InnerProduct::plus, axis, u, v);
}
BilinearForm inner_h(const TrialGradient& u, const TestGradient& v) {
  BilinearForm form;
  form.add({InnerProduct::h, u, v});
  return form;
}
BilinearForm inner_plus(const TrialGradient& u, const TestGradient& v) {
  BilinearForm form;
  form.add({InnerProduct::plus, u, v});
  return form;
}

std::int32_t LinearForm::coefficient_slots() const {
  std::int32_t slots = 0;
  for (const LinearTerm& term : terms_) slots = std::max(slots, term.coefficient + 1);
  return slots;
}

LinearForm operator+(LinearForm a, const LinearForm& b) {
  a.terms_.insert(a.terms_.end(), b.terms_.begin(), b.terms_.end());
  return a;
}

namespace {

LinearForm single_linear(InnerProduct weight, int axis, std::int32_t slot, double scale, const TestTerm& v) {
  LinearTerm term;
  term.weight = weight;
  term.axis = static_cast<std::int8_t>(axis);
  term.test = v.op;
  term.coefficient = slot;
  term.scale = scale;
  return LinearForm({term});
}

void check_slot(Coefficient f) {
  if (f.slot < 0) throw UsageError("coefficient slot must not be negative, got " + std::to_string(f.slot));
}

}  // namespace

LinearForm inner_h(Coefficient f, const TestTerm& v) {
  check_slot(f);
  return single_linear(InnerProduct::h, 0, f.slot, 1.0, v);
}
LinearForm inner_h(Coefficient f, TestFunction v) { return inner_h(f, identity() * v); }
LinearForm inner_h(double f, const TestTerm& v) { return single_linear(InnerProduct::h, 0, -1, f, v); }
LinearForm inner_h(double f, TestFunction v) { return inner_h(f, identity() * v); }
LinearForm inner_plus(Coefficient f, const TestTerm& v, int axis) {
  check_slot(f);
  if (axis < 0 || axis > 2) throw UsageError("inner_plus axis must be 0, 1 or 2, got " + std::to_string(axis));
  return single_linear(InnerProduct::plus, axis, f.slot, 1.0, v);
}

}  // namespace trellis::grid
