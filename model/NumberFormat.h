#pragma once

#include <string>

namespace stepscope {

// The shortest decimal text that reads back as exactly `v` ("36.16", not "36.159999999999997"):
// how CSV, TSV copy and JSON write numbers. NaN and infinities give "nan", "inf", "-inf"; callers
// that mean "no value" by NaN check for it first.
std::string shortestNumber(double v);

// A byte count in the largest binary unit below it: "512 B", "1.50 KiB", "3.25 GiB" (two
// decimals above bytes).
std::string formatBytes(double bytes);

// A count or rate with an SI prefix and 3 significant digits: "950", "25.8 k", "1.07 P"
// (k, M, G, T, P, E; below 1000 no prefix).
std::string formatSi(double v);

// `v` with exactly `decimals` digits after the point, as printf's %.Nf: "12.3", "0.050".
std::string fixedDecimals(double v, int decimals);

} // namespace stepscope
