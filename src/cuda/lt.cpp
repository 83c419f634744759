// lt.heuristic and lt:<record>: cuBLASLt's matmul on the Context's cuBLASLt handle and stream,
// for bf16 and f16 inputs (C of the input type or f32) computing in f32, and f32 computing in
// TF32. Strided batches (cuBLASLt's strided batch offsets); pointer arrays go to `cublas`.
//
// Why they exist: cuBLASLt's heuristic picks well on average but not per shape, and which
// configuration wins moves with the GPU and the library version. The tuner times the
// heuristic's answers and configurations beyond them (lt_search_space); the table keeps the
// fastest as a record, which runs as written, with no timing and no heuristic at run time.
//
// What a call costs on the host: can_run asks cublasLtMatmulAlgoCheck (a record) or
// cublasLtMatmulAlgoGetHeuristic (lt.heuristic) once per distinct problem shape and thread
// (a per-thread memo of kMemoSlots entries; no allocation); launch initialises the matmul and
// layout descriptors in place (cuBLASLt's Init functions on opaque storage) and enqueues
// cublasLtMatmul. alpha == 0 and k == 0 take the backend's quick path.
#include "cuda/lt.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "core/spelling.hpp"
#include "cuda/check.hpp"
#include "cuda/exec.hpp"
#include "cuda/scale.hpp"
#include "gemmroute/error.hpp"

namespace gemmroute::cuda {
namespace {

struct LtName {
  std::uint32_t id;
  const char* name;
};
#include "cuda/lt_names.inc"

constexpr LtName kReductionNames[] = {{CUBLASLT_REDUCTION_SCHEME_NONE, "none"},
                                      {CUBLASLT_REDUCTION_SCHEME_INPLACE, "inplace"},
                                      {CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE, "compute"},
                                      {CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE, "output"}};

template <std::size_t N>
std::string name_of(const LtName (&names)[N], std::uint32_t id) {
  for (const LtName& n : names) {
    if (n.id == id) return n.name;
  }
  return std::to_string(id);
}

// An id from its name or its number.
template <std::size_t N>
std::optional<std::uint32_t> id_of(const LtName (&names)[N], std::string_view text) {
  for (const LtName& n : names) {
    if (text == n.name) return n.id;
  }
  std::uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// --- types --------------------------------------------------------------------------------

cudaDataType_t data_type(Scalar s) {
  switch (s) {
    case Scalar::bf16:
      return CUDA_R_16BF;
    case Scalar::f16:
      return CUDA_R_16F;
    default:
      return CUDA_R_32F;
  }
}

struct Types {
  cublasComputeType_t compute;
  cudaDataType_t scale, a, c;
  explicit Types(DType d)
      : compute(d.compute == Compute::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F),
        scale(CUDA_R_32F),
        a(data_type(d.in)),
        c(data_type(d.out)) {}
};

cublasOperation_t operation(Op op) {
  return op == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T;  // real scalars only: C folded to T
}

// The alignment every item of an operand has, in bytes (a power of two, at most 256).
std::uint32_t item_alignment(const void* base, std::int64_t stride, std::int64_t batch,
                             std::size_t element) {
  auto bits = reinterpret_cast<std::uintptr_t>(base);
  if (batch > 1) bits |= static_cast<std::uintptr_t>(stride) * element;
  if (bits == 0) return 256;
  return static_cast<std::uint32_t>(std::min<std::uintptr_t>(256, bits & (~bits + 1)));
}

// --- the check handle: one per device, for can_run (which has no Exec) ----------------------

constexpr int kMaxDevices = 64;

cublasLtHandle_t check_handle(int device) {
  static std::array<cublasLtHandle_t, kMaxDevices> handles{};
  static std::array<std::once_flag, kMaxDevices> once;
  std::call_once(once[static_cast<std::size_t>(device)], [device] {
    DeviceGuard guard(device);
    check(cublasLtCreate(&handles[static_cast<std::size_t>(device)]), "cublasLtCreate");
  });
  return handles[static_cast<std::size_t>(device)];
}

// --- descriptors, initialised in place ------------------------------------------------------

struct Descs {
  cublasLtMatmulDescOpaque_t op;
  cublasLtMatrixLayoutOpaque_t a, b, c;

  // Column-major layouts of the stored A, B and C with the batch's strides; D is C.
  cublasStatus_t init(const Problem& p) {
    const Types t(p.dtype);
    cublasStatus_t s = cublasLtMatmulDescInit(&op, t.compute, t.scale);
    const cublasOperation_t ta = operation(p.ta), tb = operation(p.tb);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatmulDescSetAttribute(&op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatmulDescSetAttribute(&op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    auto layout = [&](cublasLtMatrixLayoutOpaque_t& l, cudaDataType_t type, std::int64_t rows,
                      std::int64_t cols, const Operand& o) {
      if (s != CUBLAS_STATUS_SUCCESS) return;
      s = cublasLtMatrixLayoutInit(&l, type, static_cast<std::uint64_t>(rows),
                                   static_cast<std::uint64_t>(cols), o.ld);
      if (s != CUBLAS_STATUS_SUCCESS || p.batch == 1) return;
      const auto count = static_cast<std::int32_t>(p.batch);
      const std::int64_t stride = o.stride;
      s = cublasLtMatrixLayoutSetAttribute(&l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                           sizeof count);
      if (s == CUBLAS_STATUS_SUCCESS)
        s = cublasLtMatrixLayoutSetAttribute(&l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                             &stride, sizeof stride);
    };
    layout(a, t.a, p.rows_a(), p.cols_a(), p.a);
    layout(b, t.a, p.rows_b(), p.cols_b(), p.b);
    layout(c, t.c, p.m, p.n, p.c);
    return s;
  }
};

// --- records <-> algorithms ------------------------------------------------------------------

template <class T>
cublasStatus_t get(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr,
                   T& value) {
  std::size_t written = 0;
  return cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof value, &written);
}

template <class T>
cublasStatus_t set(cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr, T value) {
  return cublasLtMatmulAlgoConfigSetAttribute(&algo, attr, &value, sizeof value);
}

LtRecord record_of(const cublasLtMatmulAlgo_t& algo) {
  LtRecord r;
  get(algo, CUBLASLT_ALGO_CONFIG_ID, r.algo);
  get(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, r.tile);
  get(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, r.stages);
  get(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, r.cluster);
  get(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, r.splitk);
  get(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, r.reduction);
  get(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, r.swizzle);
  get(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, r.custom);
  get(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, r.inner);
  return r;
}

// The algorithm a record names for the problem's types; false when cuBLASLt has no such
// algorithm id for them or refuses a field.
bool configure(cublasLtHandle_t handle, const LtRecord& r, DType dtype,
               cublasLtMatmulAlgo_t& algo) {
  const Types t(dtype);
  if (cublasLtMatmulAlgoInit(handle, t.compute, t.scale, t.a, t.a, t.c, t.c, r.algo, &algo) !=
      CUBLAS_STATUS_SUCCESS) {
    return false;
  }
  return set(algo, CUBLASLT_ALGO_CONFIG_TILE_ID, r.tile) == CUBLAS_STATUS_SUCCESS &&
         set(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, r.stages) == CUBLAS_STATUS_SUCCESS &&
         set(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, r.cluster) == CUBLAS_STATUS_SUCCESS &&
         set(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, r.splitk) == CUBLAS_STATUS_SUCCESS &&
         set(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, r.reduction) == CUBLAS_STATUS_SUCCESS &&
         set(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, r.swizzle) == CUBLAS_STATUS_SUCCESS &&
         set(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, r.custom) == CUBLAS_STATUS_SUCCESS &&
         set(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, r.inner) == CUBLAS_STATUS_SUCCESS;
}

// --- the per-thread memo of prepared problems ------------------------------------------------

// What a prepared launch depends on: the candidate, the device, the types and forms, the sizes,
// leading dimensions and strides, and each operand's item alignment.
struct Shape {
  const void* owner = nullptr;
  int device = -1;
  std::uint32_t dtype = 0;
  std::uint32_t forms = 0;
  std::uint32_t alignments = 0;
  std::int64_t m = 0, n = 0, k = 0, batch = 0, lda = 0, ldb = 0, ldc = 0, sa = 0, sb = 0, sc = 0;
  friend bool operator==(const Shape&, const Shape&) = default;
};

struct Alignments {
  std::uint32_t a, b, c;
};

Alignments alignments_of(const Problem& p) {
  const std::size_t in = size_of(p.dtype.in), out = size_of(p.dtype.out);
  return {item_alignment(p.a.base, p.a.stride, p.batch, in),
          item_alignment(p.b.base, p.b.stride, p.batch, in),
          item_alignment(p.c.base, p.c.stride, p.batch, out)};
}

// Whether the operands are as aligned as the algorithm's capabilities ask (a capability it
// does not state asks nothing).
bool aligned_for(const cublasLtMatmulAlgo_t& algo, const Alignments& al) {
  for (auto [attr, have] : {std::pair{CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES, al.a},
                            std::pair{CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES, al.b},
                            std::pair{CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES, al.c},
                            std::pair{CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES, al.c}}) {
    std::uint32_t need = 0;
    std::size_t written = 0;
    if (cublasLtMatmulAlgoCapGetAttribute(&algo, attr, &need, sizeof need, &written) ==
            CUBLAS_STATUS_SUCCESS &&
        need > have) {
      return false;
    }
  }
  return true;
}

Shape shape_of(const void* owner, int device, const Problem& p) {
  const Alignments al = alignments_of(p);
  Shape s;
  s.owner = owner;
  s.device = device;
  s.dtype = dtype_bits(p.dtype);
  s.forms = static_cast<std::uint32_t>(p.ta) | static_cast<std::uint32_t>(p.tb) << 4;
  s.alignments = al.a | al.b << 9 | al.c << 18;
  s.m = p.m;
  s.n = p.n;
  s.k = p.k;
  s.batch = p.batch;
  s.lda = p.a.ld;
  s.ldb = p.b.ld;
  s.ldc = p.c.ld;
  if (p.batch > 1) {
    s.sa = p.a.stride;
    s.sb = p.b.stride;
    s.sc = p.c.stride;
  }
  return s;
}

struct Prepared {
  Verdict verdict;
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace = 0;
  bool reproducible = true;
};

constexpr std::size_t kMemoSlots = 64;

struct MemoSlot {
  bool used = false;
  Shape shape;
  Prepared prepared;
};

std::size_t slot_of(const Shape& s) {
  std::uint64_t h = reinterpret_cast<std::uintptr_t>(s.owner) * 0x9e3779b97f4a7c15ull;
  for (std::int64_t v :
       {s.m, s.n, s.k, s.batch, s.lda, s.ldb, s.ldc, s.sa, s.sb, s.sc, std::int64_t{s.dtype},
        std::int64_t{s.forms}, std::int64_t{s.alignments}, std::int64_t{s.device}}) {
    h = (h ^ static_cast<std::uint64_t>(v)) * 0x100000001b3ull;
  }
  return static_cast<std::size_t>(h ^ (h >> 29)) % kMemoSlots;
}

// The memo's answer for (owner, problem), made by `prepare` on a miss.
template <class Prepare>
const Prepared& memoised(const void* owner, int device, const Problem& p, Prepare prepare) {
  thread_local std::array<MemoSlot, kMemoSlots> memo;
  const Shape shape = shape_of(owner, device, p);
  MemoSlot& slot = memo[slot_of(shape)];
  if (!slot.used || !(slot.shape == shape)) {
    slot.prepared = prepare();
    slot.shape = shape;
    slot.used = true;
  }
  return slot.prepared;
}

// What both candidates refuse before asking cuBLASLt.
Verdict basic_verdict(const Problem& p, int device) {
  if (device < 0) return Verdict::no("the CUDA vocabulary alone runs nothing");
  if (!lt_dtype(p.dtype)) {
    return Verdict::no("cuBLASLt candidates run bf16 and f16 (f32 compute) and f32 with TF32");
  }
  if (p.pointer_array()) return Verdict::no("cuBLASLt candidates run strided batches only");
  if (p.batch > INT32_MAX) return Verdict::no("cuBLASLt's batch count is a 32-bit number");
  return Verdict::yes();
}

// The quick path's problems (alpha == 0, k == 0) need no algorithm.
bool quick(const Problem& p) {
  return p.k == 0 || p.alpha == std::complex<double>(0.0, 0.0);
}

void run(const Problem& p, const CudaExec& exec, const cublasLtMatmulAlgo_t& algo) {
  Descs d;
  check(d.init(p), "cublasLtMatmulDescInit/cublasLtMatrixLayoutInit");
  const float alpha = static_cast<float>(p.alpha.real());
  const float beta = static_cast<float>(p.beta.real());
  void* c = const_cast<void*>(p.c.base);
  // The workspace is the candidates' one (cuda.reg's split k keeps sums in it between two
  // launches): nothing may be enqueued between those.
  const std::lock_guard<std::mutex> hold(exec.launch_mutex());
  check(cublasLtMatmul(exec.lt(), &d.op, &alpha, p.a.base, &d.a, p.b.base, &d.b, &beta, c, &d.c, c,
                       &d.c, &algo, exec.workspace(), kWorkspaceBytes, exec.cuda_stream()),
        "cublasLtMatmul");
}

// What both candidates share: the refusals before cuBLASLt is asked, the quick path, and a
// launch of the algorithm prepared (memoised) for the problem.
class LtBase : public Candidate {
 public:
  explicit LtBase(int device) : device_(device) {}
  Provider provider() const override { return Provider::vendor; }
  Verdict can_run(const Problem& p) const override {
    const Verdict v = basic_verdict(p, device_);
    if (!v.ok || quick(p)) return v;
    return prepared(p).verdict;
  }
  std::size_t workspace_bytes(const Problem& p) const override {
    if (!basic_verdict(p, device_).ok || quick(p)) return 0;
    return prepared(p).workspace;
  }
  void launch(const Problem& p, const Exec& e) const override {
    require_runnable(*this, p, e);
    const CudaExec& exec = cuda_exec(e);
    if (quick_path(p, exec)) return;
    run(p, exec, prepared(p).algo);
  }

 protected:
  // The algorithm for a problem that passed basic_verdict and is not on the quick path.
  virtual const Prepared& prepared(const Problem& p) const = 0;
  int device_;
};

// --- lt:<record> -----------------------------------------------------------------------------

class LtCandidate final : public LtBase {
 public:
  LtCandidate(const LtRecord& record, int device)
      : LtBase(device), record_(record), spelling_(format_lt(record)) {}
  std::string_view spelling() const override { return spelling_; }
  bool reproducible(const Problem&) const override { return record_.splitk <= 1; }

 private:
  // The record's algorithm for the problem, checked by cublasLtMatmulAlgoCheck.
  const Prepared& prepared(const Problem& p) const override {
    return memoised(this, device_, p, [&] {
      Prepared out;
      const cublasLtHandle_t handle = check_handle(device_);
      if (!configure(handle, record_, p.dtype, out.algo)) {
        out.verdict = Verdict::no(
            "cuBLASLt has no such configuration for these types (algorithm id or field out of "
            "its range)");
        return out;
      }
      if (!aligned_for(out.algo, alignments_of(p))) {
        out.verdict = Verdict::no("an operand is less aligned than the configuration needs");
        return out;
      }
      Descs d;
      cublasLtMatmulHeuristicResult_t result{};
      if (d.init(p) != CUBLAS_STATUS_SUCCESS ||
          cublasLtMatmulAlgoCheck(handle, &d.op, &d.a, &d.b, &d.c, &d.c, &out.algo, &result) !=
              CUBLAS_STATUS_SUCCESS) {
        out.verdict = Verdict::no("cublasLtMatmulAlgoCheck refuses the configuration here");
        return out;
      }
      out.workspace = result.workspaceSize;
      out.reproducible = record_.splitk <= 1;
      return out;
    });
  }

  LtRecord record_;
  std::string spelling_;
};

// --- lt.heuristic ----------------------------------------------------------------------------

// cuBLASLt's heuristic for a problem: up to `count` answers that fit the workspace and the
// operands' alignments.
std::vector<cublasLtMatmulHeuristicResult_t> heuristic(cublasLtHandle_t handle, const Problem& p,
                                                       int count) {
  Descs d;
  if (d.init(p) != CUBLAS_STATUS_SUCCESS) return {};
  cublasLtMatmulPreferenceOpaque_t pref;
  if (cublasLtMatmulPreferenceInit(&pref) != CUBLAS_STATUS_SUCCESS) return {};
  const std::uint64_t workspace = kWorkspaceBytes;
  cublasLtMatmulPreferenceSetAttribute(&pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                       sizeof workspace);
  const Alignments al = alignments_of(p);
  struct Pref {
    cublasLtMatmulPreferenceAttributes_t attr;
    std::uint32_t value;
  };
  for (Pref x : {Pref{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, al.a},
                 Pref{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, al.b},
                 Pref{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, al.c},
                 Pref{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, al.c}}) {
    cublasLtMatmulPreferenceSetAttribute(&pref, x.attr, &x.value, sizeof x.value);
  }
  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(count));
  int returned = 0;
  if (cublasLtMatmulAlgoGetHeuristic(handle, &d.op, &d.a, &d.b, &d.c, &d.c, &pref, count,
                                     results.data(), &returned) != CUBLAS_STATUS_SUCCESS) {
    return {};
  }
  results.resize(static_cast<std::size_t>(std::max(returned, 0)));
  std::erase_if(results, [](const auto& r) { return r.state != CUBLAS_STATUS_SUCCESS; });
  return results;
}

class LtHeuristic final : public LtBase {
 public:
  explicit LtHeuristic(int device) : LtBase(device) {}
  std::string_view spelling() const override { return "lt.heuristic"; }
  // Its first answer's split-K: reproducible when it does not split k.
  bool reproducible(const Problem& p) const override {
    if (!basic_verdict(p, device_).ok || quick(p)) return true;
    return prepared(p).reproducible;
  }

 private:
  // One answer per distinct problem and thread: the heuristic is asked once per shape.
  const Prepared& prepared(const Problem& p) const override {
    return memoised(this, device_, p, [&] {
      Prepared out;
      // A heuristic call takes a few microseconds: the per-thread memo makes it once a shape.
      const auto answers = heuristic(check_handle(device_), p, 1);
      if (answers.empty()) {
        out.verdict = Verdict::no("cuBLASLt's heuristic has no answer for the problem");
        return out;
      }
      out.algo = answers.front().algo;
      out.workspace = answers.front().workspaceSize;
      out.reproducible = record_of(out.algo).splitk <= 1;
      return out;
    });
  }
};

// --- the search space ------------------------------------------------------------------------

template <class T>
std::vector<T> cap_array(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr) {
  std::size_t bytes = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&algo, attr, nullptr, 0, &bytes) != CUBLAS_STATUS_SUCCESS ||
      bytes == 0) {
    return {};
  }
  std::vector<T> v(bytes / sizeof(T));
  if (cublasLtMatmulAlgoCapGetAttribute(&algo, attr, v.data(), v.size() * sizeof(T), &bytes) !=
      CUBLAS_STATUS_SUCCESS) {
    return {};
  }
  return v;
}

template <class T>
T cap_value(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attr) {
  T v{};
  std::size_t written = 0;
  cublasLtMatmulAlgoCapGetAttribute(&algo, attr, &v, sizeof v, &written);
  return v;
}

// What one algorithm id allows, from its capabilities.
struct Caps {
  std::vector<std::uint32_t> tiles, stages;
  bool splitk = false;
  std::uint32_t reductions = 0;
  bool swizzle = false;
  std::int32_t custom_max = 0;
};

Caps caps_of(const cublasLtMatmulAlgo_t& algo) {
  Caps c;
  c.tiles = cap_array<std::uint32_t>(algo, CUBLASLT_ALGO_CAP_TILE_IDS);
  c.stages = cap_array<std::uint32_t>(algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
  c.splitk = cap_value<std::int32_t>(algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT) != 0;
  c.reductions = cap_value<std::uint32_t>(algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK);
  c.swizzle = cap_value<std::uint32_t>(algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT) != 0;
  c.custom_max = cap_value<std::int32_t>(algo, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX);
  if (c.tiles.empty()) c.tiles = {CUBLASLT_MATMUL_TILE_UNDEFINED};
  if (c.stages.empty()) c.stages = {CUBLASLT_MATMUL_STAGES_UNDEFINED};
  return c;
}

// Cluster shapes tried beyond a record's own (the header lists 50; these are the ones Hopper's
// kernels are built for).
constexpr std::uint16_t kClusters[] = {CUBLASLT_CLUSTER_SHAPE_AUTO,  CUBLASLT_CLUSTER_SHAPE_1x1x1,
                                       CUBLASLT_CLUSTER_SHAPE_2x1x1, CUBLASLT_CLUSTER_SHAPE_1x2x1,
                                       CUBLASLT_CLUSTER_SHAPE_2x2x1, CUBLASLT_CLUSTER_SHAPE_4x1x1,
                                       CUBLASLT_CLUSTER_SHAPE_1x4x1};
constexpr std::int32_t kSplits[] = {2, 3, 4, 6, 8, 16};

// Records one attribute away from `r`, over the ranges its algorithm's capabilities allow:
// stages, cluster shape, split-K (with each reduction it supports), swizzle, custom option,
// tile, in that order.
std::vector<LtRecord> neighbours(const LtRecord& r, const Caps& c) {
  std::vector<LtRecord> out;
  for (std::uint32_t s : c.stages) {
    LtRecord x = r;
    x.stages = s;
    out.push_back(x);
  }
  for (std::uint16_t cl : kClusters) {
    LtRecord x = r;
    x.cluster = cl;
    out.push_back(x);
  }
  if (c.splitk) {
    for (std::int32_t k : kSplits) {
      for (std::uint32_t red :
           {CUBLASLT_REDUCTION_SCHEME_INPLACE, CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE,
            CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE}) {
        if (!(c.reductions & red)) continue;
        LtRecord x = r;
        x.splitk = k;
        x.reduction = red;
        out.push_back(x);
      }
    }
    LtRecord x = r;
    x.splitk = 1;
    x.reduction = CUBLASLT_REDUCTION_SCHEME_NONE;
    out.push_back(x);
  }
  if (c.swizzle) {
    LtRecord x = r;
    x.swizzle = r.swizzle ? 0 : 1;
    out.push_back(x);
  }
  for (std::int32_t o = 0; o <= std::min(c.custom_max, 15); ++o) {
    LtRecord x = r;
    x.custom = static_cast<std::uint32_t>(o);
    out.push_back(x);
  }
  for (std::uint32_t t : c.tiles) {
    LtRecord x = r;
    x.tile = t;
    out.push_back(x);
  }
  return out;
}

}  // namespace

// --- spelling --------------------------------------------------------------------------------

std::string format_lt(const LtRecord& r) {
  return "lt:v=" + std::to_string(kLtRecordVersion) + ":algo=" + std::to_string(r.algo) +
         ":tile=" + name_of(kTileNames, r.tile) + ":stages=" + name_of(kStagesNames, r.stages) +
         ":cluster=" + name_of(kClusterNames, r.cluster) + ":splitk=" + std::to_string(r.splitk) +
         ":reduction=" + name_of(kReductionNames, r.reduction) +
         ":swizzle=" + std::to_string(r.swizzle) + ":custom=" + std::to_string(r.custom) +
         ":inner=" + name_of(kInnerNames, r.inner);
}

std::optional<LtRecord> parse_lt(std::string_view text, std::string* why) {
  auto fail = [&](std::string message) -> std::optional<LtRecord> {
    if (why) *why = std::move(message);
    return std::nullopt;
  };
  std::string syntax;
  const auto sp = parse_spelling(text, nullptr, &syntax);
  if (!sp) return fail(syntax);
  if (sp->name != "lt") return fail("not an lt: record");
  static constexpr const char* kFields[] = {"v",      "algo",      "tile",    "stages", "cluster",
                                            "splitk", "reduction", "swizzle", "custom", "inner"};
  if (sp->params.size() != std::size(kFields)) {
    return fail(
        "an lt: record has the fields v, algo, tile, stages, cluster, splitk, reduction, "
        "swizzle, custom, inner, in that order");
  }
  for (std::size_t i = 0; i < std::size(kFields); ++i) {
    if (sp->params[i].first != kFields[i]) {
      return fail("field " + std::to_string(i + 1) + " of an lt: record is '" + kFields[i] +
                  "', not '" + sp->params[i].first + "'");
    }
  }
  const auto& f = sp->params;
  if (f[0].second != std::to_string(kLtRecordVersion)) {
    return fail("lt: record version '" + f[0].second + "': this build reads version " +
                std::to_string(kLtRecordVersion));
  }
  auto number = [](const std::string& s, auto& out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
  };
  LtRecord r;
  std::uint32_t u = 0;
  if (!number(f[1].second, r.algo)) return fail("algo '" + f[1].second + "' is not a number");
  auto named = [&](const auto& names, const std::string& field, const std::string& value,
                   auto& out) {
    const auto id = id_of(names, value);
    if (!id) {
      if (why)
        *why = "unknown " + field + " '" + value + "' (cuBLASLt's names: scripts/gen_lt_names.py)";
      return false;
    }
    out = static_cast<std::remove_reference_t<decltype(out)>>(*id);
    return true;
  };
  if (!named(kTileNames, "tile", f[2].second, r.tile) ||
      !named(kStagesNames, "stages", f[3].second, r.stages) ||
      !named(kClusterNames, "cluster", f[4].second, r.cluster) ||
      !named(kReductionNames, "reduction", f[6].second, r.reduction) ||
      !named(kInnerNames, "inner", f[9].second, r.inner)) {
    return std::nullopt;
  }
  if (!number(f[5].second, r.splitk) || r.splitk < 1) {
    return fail("splitk '" + f[5].second + "' is not a number >= 1");
  }
  if (!number(f[7].second, u)) return fail("swizzle '" + f[7].second + "' is not a number");
  r.swizzle = u;
  if (!number(f[8].second, u)) return fail("custom '" + f[8].second + "' is not a number");
  r.custom = u;
  const std::string canonical = format_lt(r);
  if (canonical != text) return fail("write this record as " + canonical);
  return r;
}

bool lt_dtype(DType d) noexcept {
  if (d.in == Scalar::f32) return d.out == Scalar::f32 && d.compute == Compute::tf32;
  return (d.in == Scalar::bf16 || d.in == Scalar::f16) && (d.out == d.in || d.out == Scalar::f32) &&
         d.compute == Compute::f32;
}

std::unique_ptr<Candidate> make_lt_heuristic(int device) {
  return std::make_unique<LtHeuristic>(device);
}

std::shared_ptr<const Candidate> make_lt_candidate(const LtRecord& record, int device) {
  return std::make_shared<LtCandidate>(record, device);
}

SearchSpace lt_search_space(const Problem& p, int device, const SearchBudget& budget) {
  SearchSpace out;
  if (device < 0 || !basic_verdict(p, device).ok || quick(p)) return out;
  const cublasLtHandle_t handle = check_handle(device);
  std::set<std::string> seen;
  auto add = [&](const LtRecord& r, std::string source) {
    std::string s = format_lt(r);
    if (!seen.insert(s).second) return false;
    out.candidates.push_back(make_lt_candidate(r, device));
    out.sources.push_back(std::move(source));
    return true;
  };

  // The heuristic's answers, each as the record it reads as. A record rebuilt by
  // cublasLtMatmulAlgoInit and the config attributes should be the answer's algorithm byte for
  // byte; those that are not are counted (the tuner times the record, which is what a table
  // runs).
  const auto answers = heuristic(handle, p, std::max(budget.heuristic, 1));
  std::vector<LtRecord> top;
  int not_reproduced = 0;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const LtRecord r = record_of(answers[i].algo);
    cublasLtMatmulAlgo_t rebuilt{};
    if (!configure(handle, r, p.dtype, rebuilt) ||
        std::memcmp(&rebuilt, &answers[i].algo, sizeof rebuilt) != 0) {
      ++not_reproduced;
    }
    if (add(r, "top-" + std::to_string(i + 1))) top.push_back(r);
  }
  const std::size_t heuristic_kept = out.candidates.size();

  // Beyond them: a configuration must pass cublasLtMatmulAlgoCheck with a workspace that fits.
  Descs d;
  const bool descs = d.init(p) == CUBLAS_STATUS_SUCCESS;
  int checked = 0, valid = 0, extended = 0;
  std::set<std::string> tried;
  const Types t(p.dtype);
  const Alignments al = alignments_of(p);
  // Checks a record; a valid one is timed while fewer than `quota` extended ones are.
  auto try_record = [&](const LtRecord& r, int quota, int check_limit) {
    if (!descs || checked >= check_limit) return;
    const std::string s = format_lt(r);
    if (seen.count(s) || !tried.insert(s).second) return;
    ++checked;
    cublasLtMatmulAlgo_t algo{};
    if (!configure(handle, r, p.dtype, algo)) return;
    if (!aligned_for(algo, al)) return;
    cublasLtMatmulHeuristicResult_t result{};
    if (cublasLtMatmulAlgoCheck(handle, &d.op, &d.a, &d.b, &d.c, &d.c, &algo, &result) !=
            CUBLAS_STATUS_SUCCESS ||
        result.workspaceSize > kWorkspaceBytes) {
      return;
    }
    ++valid;
    if (extended < quota && add(r, "extended")) ++extended;
  };
  // 1. One attribute away from the heuristic's first eight answers: three quarters of the
  //    extended budget (where the heuristic's model errs, it errs in these).
  // Two thirds of the checks at most: algorithm 66 lists hundreds of tiles, and on the H200 the
  // tile variations of eight answers alone used all 3000 checks at 56 of 72 points, so the
  // sweep below never ran there.
  const int near_quota = budget.extended - budget.extended / 4;
  const int near_checks = budget.checks - budget.checks / 3;
  for (std::size_t i = 0; i < std::min<std::size_t>(top.size(), 8); ++i) {
    cublasLtMatmulAlgo_t algo{};
    if (!configure(handle, top[i], p.dtype, algo)) continue;
    for (const LtRecord& r : neighbours(top[i], caps_of(algo))) {
      try_record(r, near_quota, near_checks);
    }
  }
  // 2. Every algorithm id, its tiles by its stages, the ids taken in turn so that a check
  //    budget that runs out has seen each of them: the rest of the extended budget.
  std::vector<int> ids(256);
  int n_ids = 0;
  if (cublasLtMatmulAlgoGetIds(handle, t.compute, t.scale, t.a, t.a, t.c, t.c,
                               static_cast<int>(ids.size()), ids.data(),
                               &n_ids) != CUBLAS_STATUS_SUCCESS) {
    n_ids = 0;
  }
  ids.resize(static_cast<std::size_t>(std::max(n_ids, 0)));
  std::vector<std::vector<LtRecord>> sweeps;
  for (int id : ids) {
    cublasLtMatmulAlgo_t algo{};
    if (cublasLtMatmulAlgoInit(handle, t.compute, t.scale, t.a, t.a, t.c, t.c, id, &algo) !=
        CUBLAS_STATUS_SUCCESS) {
      continue;
    }
    const Caps c = caps_of(algo);
    std::vector<LtRecord> sweep;
    for (std::uint32_t tile : c.tiles) {
      for (std::uint32_t st : c.stages) {
        LtRecord r;
        r.algo = id;
        r.tile = tile;
        r.stages = st;
        sweep.push_back(r);
      }
    }
    sweeps.push_back(std::move(sweep));
  }
  for (std::size_t round = 0; checked < budget.checks; ++round) {
    bool any = false;
    for (const auto& sweep : sweeps) {
      if (round < sweep.size()) {
        any = true;
        try_record(sweep[round], budget.extended, budget.checks);
      }
    }
    if (!any) break;
  }

  char line[320];
  std::snprintf(line, sizeof line,
                "cuBLASLt search: heuristic asked %d, answered %zu, distinct %zu (%d not rebuilt "
                "byte for byte from their record); extended over %zu algorithm ids: checked %d, "
                "valid %d, timed %d",
                budget.heuristic, answers.size(), heuristic_kept, not_reproduced, ids.size(),
                checked, valid, extended);
  out.summary = line;
  return out;
}

}  // namespace gemmroute::cuda
