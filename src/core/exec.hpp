// Exec: the execution resources a launch runs with, made once per Context by its backend
// (Backend::make_exec) and handed to every launch, so nothing is created, allocated or
// synchronised on the call path. On the CPU it holds nothing; the CUDA backend's holds the
// stream, the cuBLAS handles and a device workspace (src/cuda/exec.hpp). A candidate states up
// front how much workspace a problem needs (Candidate::workspace_bytes), and the selector skips
// it where the Context's workspace is smaller.
#pragma once

#include <cstddef>
#include <span>

namespace gemmroute {

class Exec {
 public:
  virtual ~Exec() = default;
  // Bytes of device workspace every launch through this Exec may use.
  virtual std::size_t workspace_bytes() const noexcept { return 0; }
  // The stream launches are enqueued on (a cudaStream_t), or nullptr.
  virtual void* stream() const noexcept { return nullptr; }

  // Pointer arrays built on the host during one call (a grouped batch's groups), made readable
  // by this Exec's launches. Host backends read them in place; a device backend copies them in
  // stream order. `data` stays valid for every launch enqueued before the Staged is destroyed;
  // another thread's staging on this Exec waits for that (the Staged holds the staging area).
  class Staged {
   public:
    Staged(const void* const* data, const Exec* owner) : data_(data), owner_(owner) {}
    Staged(const Staged&) = delete;
    Staged& operator=(const Staged&) = delete;
    ~Staged() {
      if (owner_) owner_->release_staged();
    }
    const void* const* data() const noexcept { return data_; }

   private:
    const void* const* data_;
    const Exec* owner_;
  };
  virtual Staged stage_pointers(std::span<const void* const> host) const {
    return Staged(host.data(), nullptr);
  }

 protected:
  // Ends the use of the staging area that stage_pointers began.
  virtual void release_staged() const noexcept {}
};

}  // namespace gemmroute
