// A fixed-capacity FIFO for pipe instruction queues: storage is allocated once (the queue depth
// is known when the pipe is built), so pushing and popping instructions never allocates, unlike
// std::deque, which allocates a block every few elements of this size.
#pragma once

#include <cstddef>
#include <vector>

namespace aicore::sim {

template <typename T>
class RingQueue {
 public:
  explicit RingQueue(size_t capacity) : items_(capacity == 0 ? 1 : capacity) {}

  size_t size() const { return size_; }
  size_t capacity() const { return items_.size(); }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == items_.size(); }

  // Precondition: !full().
  void push_back(const T& v) {
    items_[(head_ + size_) % items_.size()] = v;
    ++size_;
  }
  // Precondition: !empty().
  void pop_front() {
    head_ = (head_ + 1) % items_.size();
    --size_;
  }
  T& front() { return items_[head_]; }
  // Precondition: !empty().
  T& back() { return items_[(head_ + size_ - 1) % items_.size()]; }
  const T& front() const { return items_[head_]; }
  // i-th element from the front, i < size().
  const T& operator[](size_t i) const { return items_[(head_ + i) % items_.size()]; }

 private:
  std::vector<T> items_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace aicore::sim
