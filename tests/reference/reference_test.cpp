// The oracle itself: exact on hand-computed cases, and its check catches wrong results.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>

#include "reference/reference.hpp"

namespace gemmroute {
namespace {

Problem tiny(Scalar s, void* a, void* b, void* c) {
  Problem p;
  p.dtype = s;
  p.m = 2;
  p.n = 2;
  p.k = 2;
  p.batch = 1;
  p.a = {a, nullptr, 2, 4};
  p.b = {b, nullptr, 2, 4};
  p.c = {c, nullptr, 2, 4};
  return p;
}

TEST(Reference, HandComputedRealProduct) {
  // A = [1 3; 2 4] (column-major), B = [5 7; 6 8]: A B = [23 31; 34 46].
  double a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8}, c[] = {1, 1, 1, 1};
  Problem p = tiny(Scalar::f64, a, b, c);
  p.alpha = 2.0;
  p.beta = -1.0;
  reference::reference_gemm(p);
  EXPECT_EQ(c[0], 45);
  EXPECT_EQ(c[1], 67);
  EXPECT_EQ(c[2], 61);
  EXPECT_EQ(c[3], 91);
}

TEST(Reference, ConjugateTransposeOfComplex) {
  using Z = std::complex<double>;
  // op(A) = A^H with A = [i 0; 0 1]: A^H = [-i 0; 0 1]. B = I. C = A^H.
  Z a[] = {Z(0, 1), Z(0, 0), Z(0, 0), Z(1, 0)};
  Z b[] = {Z(1, 0), Z(0, 0), Z(0, 0), Z(1, 0)};
  Z c[4] = {};
  Problem p = tiny(Scalar::c64, a, b, c);
  p.ta = Op::C;
  reference::reference_gemm(p);
  EXPECT_EQ(c[0], Z(0, -1));
  EXPECT_EQ(c[3], Z(1, 0));
}

TEST(Reference, CheckRejectsAnErrorAboveTheBoundAndNaN) {
  float a[] = {0.1f, 0.2f, 0.3f, 0.4f}, b[] = {0.5f, 0.6f, 0.7f, 0.8f};
  float c0[] = {0, 0, 0, 0}, c[] = {0, 0, 0, 0};
  Problem orig = tiny(Scalar::f32, a, b, c0);
  Problem got = tiny(Scalar::f32, a, b, c);
  std::copy(c0, c0 + 4, c);
  reference::reference_gemm(got);  // c = the rounded reference
  EXPECT_TRUE(reference::check_against_reference(got, orig).ok);
  c[2] *= 1.0f + 64 * std::numeric_limits<float>::epsilon();  // 64 eps: above 16 eps bound
  auto bad = reference::check_against_reference(got, orig);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.row, 0);
  EXPECT_EQ(bad.col, 1);
  reference::reference_gemm(got);
  c[1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(reference::check_against_reference(got, orig).ok);
}

TEST(Reference, BetaZeroIgnoresNaNInC) {
  double a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8};
  double c0[] = {NAN, NAN, INFINITY, NAN}, c[] = {NAN, NAN, INFINITY, NAN};
  Problem got = tiny(Scalar::f64, a, b, c);
  Problem orig = tiny(Scalar::f64, a, b, c0);
  reference::reference_gemm(got);
  EXPECT_EQ(c[0], 23);
  EXPECT_TRUE(reference::check_against_reference(got, orig).ok);
}

}  // namespace
}  // namespace gemmroute
