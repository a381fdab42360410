// Bilinear and linear forms written from the discrete operators, Bramble
// style. A bilinear form is a sum of terms
//     scale * < c * T(u), S(v) >_W
// where u is the trial function, v the test function, T and S operator
// chains (operators.hpp), c an optional node-wise coefficient (refillable
// without a new setup) and W one of the discrete inner products (norms.hpp):
//   inner_h     weights hhalf_0 * hhalf_1 * hhalf_2 (control volumes),
//   inner_plus  along axis a: h_a * prod_{b != a} hhalf_b, zero where i_a = 0.
// Example, -div(k grad u) + c u with convection b . grad u:
//     TrialFunction u;  TestFunction v;
//     Coefficient k{0}, c{1}, b0{2};
//     BilinearForm a = inner_plus(k * grad_minus(u), grad_minus(v))
//                    + inner_h(c * u, v)
//                    + inner_h(b0 * backward_difference(0)(u), v);
//     LinearForm l = inner_h(Coefficient{3}, v);   // e.g. avg_h f in slot 3
// The form's matrix has entries A[r][col] = a(phi_col, phi_r).
#pragma once

#include <cstdint>
#include <vector>

#include "trellis/grid/operators.hpp"

namespace trellis::grid {

// The trial function u of a form (a placeholder: operators and coefficients apply to it).
struct TrialFunction {};
// The test function v of a form (a placeholder: operators apply to it).
struct TestFunction {};

// A node-wise coefficient: slot s of the Coefficients given at refill.
struct Coefficient {
  std::int32_t slot;  // index into the Coefficients' slots
};

// scale * c * op(u); coefficient -1 means none.
struct TrialTerm {
  Operator op;                    // the operator chain T applied to u
  std::int32_t coefficient = -1;  // coefficient slot, or -1 for none
  double scale = 1;               // constant factor
};
// op(v): an operator chain applied to the test function.
struct TestTerm {
  Operator op;  // the operator chain S applied to v
};
// The backward (D-) or forward (D+) gradient, one component per axis, with
// an optional coefficient and scale applied to every component.
struct TrialGradient {
  bool forward = false;           // D+ when true, D- when false
  std::int32_t coefficient = -1;  // coefficient slot, or -1 for none
  double scale = 1;               // constant factor
};
// The backward (D-) or forward (D+) gradient of the test function.
struct TestGradient {
  bool forward = false;  // D+ when true, D- when false
};

TrialTerm operator*(const Operator& op, TrialFunction);  // op(u) also works, see Operator::operator()
// op * v: the same as op(v).
TestTerm operator*(const Operator& op, TestFunction);
// c * term; UsageError when term has a coefficient already or the slot is negative.
TrialTerm operator*(Coefficient c, TrialTerm term);
// c * u.
TrialTerm operator*(Coefficient c, TrialFunction u);
// scale * term.
TrialTerm operator*(double scale, TrialTerm term);
// scale * u.
TrialTerm operator*(double scale, TrialFunction u);
// c * g; UsageError when g has a coefficient already or the slot is negative.
TrialGradient operator*(Coefficient c, TrialGradient g);
// scale * g.
TrialGradient operator*(double scale, TrialGradient g);

// The backward gradient D- of u, one component per axis.
TrialGradient grad_minus(TrialFunction);
// The backward gradient D- of v, one component per axis.
TestGradient grad_minus(TestFunction);
// The forward gradient D+ of u, one component per axis.
TrialGradient grad_plus(TrialFunction);
// The forward gradient D+ of v, one component per axis.
TestGradient grad_plus(TestFunction);

// The discrete inner products: h (control-volume weights) and plus (staggered, along one axis).
enum class InnerProduct : std::uint8_t {
  h,    // inner_h: control-volume weights
  plus  // inner_plus: staggered weights along an axis
};

// One term scale * < c * trial(u), test(v) >_W of a bilinear form.
struct FormTerm {
  InnerProduct weight = InnerProduct::h;  // the inner product W
  std::int8_t axis = 0;                   // for InnerProduct::plus
  Operator trial;                         // operator chain on u
  Operator test;                          // operator chain on v
  std::int32_t coefficient = -1;          // coefficient slot, or -1 for none
  double scale = 1;                       // constant factor
};

// A sum of FormTerms and gradient terms: the bilinear form a(u, v).
class BilinearForm {
 public:
  BilinearForm() = default;  // the zero form
  // The sum of terms.
  explicit BilinearForm(std::vector<FormTerm> terms) : terms_(std::move(terms)) {}
  // Gradients expand to one term per axis, so a form knows its terms only
  // once the dimension is known.
  std::vector<FormTerm> terms(int dim) const;
  // The number of coefficient slots the form reads (largest slot + 1).
  std::int32_t coefficient_slots() const;

  // a + b, term by term.
  friend BilinearForm operator+(BilinearForm a, const BilinearForm& b);
  // a - b (b's terms negated).
  friend BilinearForm operator-(BilinearForm a, const BilinearForm& b);
  // scale * a.
  friend BilinearForm operator*(double scale, BilinearForm a);

  // A gradient inner product, expanded to one FormTerm per axis by terms(dim).
  struct GradientTerm {
    InnerProduct weight;  // the inner product W
    TrialGradient trial;  // the trial gradient
    TestGradient test;    // the test gradient
  };
  // Adds a gradient term.
  void add(GradientTerm term) { gradients_.push_back(term); }

 private:
  std::vector<FormTerm> terms_;
  std::vector<GradientTerm> gradients_;
};

// < u, v >_h with control-volume weights.
BilinearForm inner_h(const TrialTerm& u, const TestTerm& v);
// < u, v >_h with control-volume weights.
BilinearForm inner_h(TrialFunction u, const TestTerm& v);
// < u, v >_h with control-volume weights.
BilinearForm inner_h(const TrialTerm& u, TestFunction v);
// < u, v >_h with control-volume weights.
BilinearForm inner_h(TrialFunction u, TestFunction v);
// < u, v >_+ along axis, staggered weights.
BilinearForm inner_plus(const TrialTerm& u, const TestTerm& v, int axis);
BilinearForm inner_h(const TrialGradient& u, const TestGradient& v);     // sum over axes, control-volume weights
BilinearForm inner_plus(const TrialGradient& u, const TestGradient& v);  // sum over axes, staggered weights

// A linear form: a sum of terms scale * < f, S(v) >_W with f a coefficient
// slot or a constant.
struct LinearTerm {
  InnerProduct weight = InnerProduct::h;  // the inner product W
  std::int8_t axis = 0;                   // for InnerProduct::plus
  Operator test;                          // operator chain on v
  std::int32_t coefficient = -1;          // -1: the constant `scale`
  double scale = 1;                       // constant factor
};

// A sum of LinearTerms: the linear form l(v).
class LinearForm {
 public:
  LinearForm() = default;  // the zero form
  // The sum of terms.
  explicit LinearForm(std::vector<LinearTerm> terms) : terms_(std::move(terms)) {}
  // The terms, in the order added.
  const std::vector<LinearTerm>& terms() const noexcept { return terms_; }
  // The number of coefficient slots the form reads (largest slot + 1).
  std::int32_t coefficient_slots() const;
  // a + b, term by term.
  friend LinearForm operator+(LinearForm a, const LinearForm& b);

 private:
  std::vector<LinearTerm> terms_;
};

// < f, v >_h with f a coefficient slot.
LinearForm inner_h(Coefficient f, const TestTerm& v);
// < f, v >_h with f a coefficient slot.
LinearForm inner_h(Coefficient f, TestFunction v);
// < f, v >_h with f a constant.
LinearForm inner_h(double f, const TestTerm& v);
// < f, v >_h with f a constant.
LinearForm inner_h(double f, TestFunction v);
// < f, v >_+ along axis with f a coefficient slot.
LinearForm inner_plus(Coefficient f, const TestTerm& v, int axis);

}  // namespace trellis::grid
