#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "model/HugePages.h"

namespace stepscope {

// An allocator whose value-less construct() leaves trivial elements uninitialised, so that
// resize() of a column that is written next does not zero-fill it first. Filling tens of millions
// of rows twice (once with zeros, once with data) doubles the memory traffic of a load, and the
// zeros are what first touches the pages. Constructing with a value behaves as usual.
//
// Large columns get a mapping of their own that starts on a huge page boundary and carries the
// page size advice of advisePageSize before anything touches it (mapHugePageBytes), so that where
// huge pages are asked for, all of a column but its last partial huge page is mapped 2 MiB at a
// fault; smaller ones come from the heap. It wraps std::allocator rather than deriving from it,
// so that no allocation member it does not override (C++23's allocate_at_least) can bypass the
// size test that deallocate repeats.
template <class T> class DefaultInitAllocator {
public:
    using value_type = T;
    DefaultInitAllocator() = default;
    template <class U> DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

    T* allocate(size_t n) {
        if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
        if (n * sizeof(T) < kHugePageAdviceBytes) return std::allocator<T>().allocate(n);
        return static_cast<T*>(mapHugePageBytes(n * sizeof(T)));
    }
    void deallocate(T* p, size_t n) noexcept {
        if (n * sizeof(T) < kHugePageAdviceBytes) return std::allocator<T>().deallocate(p, n);
        unmapHugePageBytes(p, n * sizeof(T));
    }

    template <class U> void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }

    template <class U> bool operator==(const DefaultInitAllocator<U>&) const noexcept {
        return true;
    }
};

// A column: a std::vector whose resize() leaves new rows of a trivial type unwritten (rows of
// other types are default-constructed, as in any vector).
template <class T> using Column = std::vector<T, DefaultInitAllocator<T>>;

// Whether a vector of this type takes `bytes` of rows as a mapping of its own: a Column that
// large does (DefaultInitAllocator), from a 2 MiB boundary to the end of the page that holds its
// last byte (mapHugePageBytes). Such a range may be replaced by another private mapping of the
// same size (ProfileCache maps cache file pages there): its deallocation unmaps whatever is
// mapped there.
template <class V> constexpr bool takesOwnMapping(size_t bytes) {
    using T = typename V::value_type;
    return std::is_same_v<typename V::allocator_type, DefaultInitAllocator<T>> &&
           bytes >= kHugePageAdviceBytes;
}

} // namespace stepscope
