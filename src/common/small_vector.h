// SmallVector: a vector of trivially copyable values (pointers, offsets) that keeps its first N
// in place and goes to the heap only beyond them. The engine keeps one per plan entry (the
// pieces it references) and one per piece (its pages); nearly all hold one or two, and a heap
// vector each cost a malloc and a free per 4 KiB read.
//
// The subset of std::vector the engine uses: push_back, reserve, clear, size, indexing,
// iteration. Moves leave the source empty; copies are not needed and not offered.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace pfio {

template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds trivially copyable values");
  static_assert(N > 0, "SmallVector needs room for at least one value in place");

 public:
  SmallVector() = default;
  ~SmallVector() { FreeHeap(); }
  SmallVector(SmallVector &&o) noexcept { Take(&o); }
  SmallVector &operator=(SmallVector &&o) noexcept {
    if (this != &o) {
      FreeHeap();
      Take(&o);
    }
    return *this;
  }
  SmallVector(const SmallVector &) = delete;
  SmallVector &operator=(const SmallVector &) = delete;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }
  T *data() { return data_; }
  const T *data() const { return data_; }
  T &operator[](size_t i) { return data_[i]; }
  const T &operator[](size_t i) const { return data_[i]; }
  T &back() { return data_[size_ - 1]; }
  T *begin() { return data_; }
  T *end() { return data_ + size_; }
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }

  void push_back(const T &v) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    data_[size_++] = v;
  }
  void reserve(size_t n) {
    if (n <= capacity_) return;
    T *grown = static_cast<T *>(std::malloc(n * sizeof(T)));
    if (grown == nullptr) throw std::bad_alloc();
    std::memcpy(grown, data_, size_ * sizeof(T));
    FreeHeap();
    data_ = grown;
    capacity_ = n;
  }
  // Empties it; heap storage is kept for reuse.
  void clear() { size_ = 0; }

 private:
  bool on_heap() const { return data_ != inline_; }
  void FreeHeap() {
    if (on_heap()) std::free(data_);
  }
  void Take(SmallVector *o) {
    size_ = o->size_;
    if (o->on_heap()) {
      data_ = o->data_;
      capacity_ = o->capacity_;
    } else {
      data_ = inline_;
      capacity_ = N;
      std::memcpy(inline_, o->inline_, size_ * sizeof(T));
    }
    o->data_ = o->inline_;
    o->capacity_ = N;
    o->size_ = 0;
  }

  T inline_[N];
  T *data_ = inline_;
  size_t size_ = 0;
  size_t capacity_ = N;
};

}  // namespace pfio
