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

struct TrialFunction {};
struct TestFunction {};

// A node-wise coefficient: slot s of the Coefficients given at refill.
struct Coefficient {
  std::int32_t slot;
};

// scale * c * op(u); coefficient -1 means none.
struct TrialTerm {
  Operator op;
  std::int32_t coefficient = -1;
  double scale = 1;
};
struct TestTerm {
  Operator op;
};
// The backward (D-) or forward (D+) gradient, one component per axis, with
// an optional coefficient and scale applied to every component.
struct TrialGradient {
  bool forward = false;
  std::int32_t coefficient = -1;
  double scale = 1;
};
struct TestGradient {
  bool forward = false;
};

TrialTerm operator*(const Operator& op, TrialFunction);  // op(u) also works, see Operator::operator()
TestTerm operator*(const Operator& op, TestFunction);
TrialTerm operator*(Coefficient c, TrialTerm term);
TrialTerm operator*(Coefficient c, TrialFunction u);
TrialTerm operator*(double scale, TrialTerm term);
TrialTerm operator*(double scale, TrialFunction u);
TrialGradient operator*(Coefficient c, TrialGradient g);
TrialGradient operator*(double scale, TrialGradient g);

TrialGradient grad_minus(TrialFunction);
TestGradient grad_minus(TestFunction);
TrialGradient grad_plus(TrialFunction);
TestGradient grad_plus(TestFunction);

enum class InnerProduct : std::uint8_t { h, plus };

struct FormTerm {
  InnerProduct weight = InnerProduct::h;
  std::int8_t axis = 0;  // for InnerProduct::plus
  Operator trial;
  Operator test;
  std::int32_t coefficient = -1;
  double scale = 1;
};

class BilinearForm {
 public:
  BilinearForm() = default;
  explicit BilinearForm(std::vector<FormTerm> terms) : terms_(std::move(terms)) {}
  // Gradients expand to one term per axis, so a form knows its terms only
  // once the dimension is known.
  std::vector<FormTerm> terms(int dim) const;
  // The number of coefficient slots the form reads (largest slot + 1).
  std::int32_t coefficient_slots() const;

  friend BilinearForm operator+(BilinearForm a, const BilinearForm& b);
  friend BilinearForm operator-(BilinearForm a, const BilinearForm& b);
  friend BilinearForm operator*(double scale, BilinearForm a);

  struct GradientTerm {
    InnerProduct weight;
    TrialGradient trial;
    TestGradient test;
  };
  void add(GradientTerm term) { gradients_.push_back(term); }

 private:
  std::vector<FormTerm> terms_;
  std::vector<GradientTerm> gradients_;
};

BilinearForm inner_h(const TrialTerm& u, const TestTerm& v);
BilinearForm inner_h(TrialFunction u, const TestTerm& v);
BilinearForm inner_h(const TrialTerm& u, TestFunction v);
BilinearForm inner_h(TrialFunction u, TestFunction v);
BilinearForm inner_plus(const TrialTerm& u, const TestTerm& v, int axis);
BilinearForm inner_h(const TrialGradient& u, const TestGradient& v);     // sum over axes, control-volume weights
BilinearForm inner_plus(const TrialGradient& u, const TestGradient& v);  // sum over axes, staggered weights

// A linear form: a sum of terms scale * < f, S(v) >_W with f a coefficient
// slot or a constant.
struct LinearTerm {
  InnerProduct weight = InnerProduct::h;
  std::int8_t axis = 0;
  Operator test;
  std::int32_t coefficient = -1;  // -1: the constant `scale`
  double scale = 1;
};

class LinearForm {
 public:
  LinearForm() = default;
  explicit LinearForm(std::vector<LinearTerm> terms) : terms_(std::move(terms)) {}
  const std::vector<LinearTerm>& terms() const noexcept { return terms_; }
  std::int32_t coefficient_slots() const;
  friend LinearForm operator+(LinearForm a, const LinearForm& b);

 private:
  std::vector<LinearTerm> terms_;
};

LinearForm inner_h(Coefficient f, const TestTerm& v);
LinearForm inner_h(Coefficient f, TestFunction v);
LinearForm inner_h(double f, const TestTerm& v);
LinearForm inner_h(double f, TestFunction v);
LinearForm inner_plus(Coefficient f, const TestTerm& v, int axis);

}  // namespace trellis::grid
