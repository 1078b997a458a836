#pragma once

#include <memory>
#include <type_traits>
#include <vector>

namespace stepscope {

// An allocator whose value-less construct() leaves trivial elements uninitialised, so that
// resize() of a column that is written next does not zero-fill it first. Filling tens of millions
// of rows twice (once with zeros, once with data) doubles the memory traffic of a load, and the
// zeros are what first touches the pages. Constructing with a value behaves as usual.
template <class T> class DefaultInitAllocator : public std::allocator<T> {
public:
    using value_type = T;
    template <class U> struct rebind { using other = DefaultInitAllocator<U>; };
    DefaultInitAllocator() = default;
    template <class U> DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

    template <class U> void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

// A column: a std::vector whose resize() leaves new rows of a trivial type unwritten (rows of
// other types are default-constructed, as in any vector).
template <class T> using Column = std::vector<T, DefaultInitAllocator<T>>;

} // namespace stepscope
