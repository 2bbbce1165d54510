// The one rule for writing sizes and times, as practice/cjudge/contract/units.py writes them (a test holds
// the two to one table): binary when a size is a whole number of quarters of the binary unit it falls in, else decimal
// with three significant digits; times in s, ms, µs or ns.
const BINARY = [["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]];
const DECIMAL = [["GB", 1e9], ["MB", 1e6], ["KB", 1e3]];

/**
 * "nan", "inf" or "-inf" for NaN and the infinities, as numbers or as the verdict JSON writes
 * them (practice/cjudge/contract/verdict_json.py: JSON has no NaN), as Python prints them; null for
 * anything else.
 */
export function nonFinite(x) {
  if (x === "nan" || x === "inf" || x === "-inf") return x;
  if (typeof x === "number" && !Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  return null;
}

/** `value` to `digits` significant digits, never in exponent form. */
const significant = (value, digits) => String(+value.toPrecision(digits));

/** "1 GB", "64 MiB", "1.5 KiB", "19.8 MB", "8 B"; "nan", "inf", "-inf". */
export function formatSize(bytes) {
  if (nonFinite(bytes)) return nonFinite(bytes);
  for (const [unit, scale] of BINARY) {
    const inRange = bytes >= scale && (unit === "GiB" || bytes < scale * 1024);
    if (inRange && (4 * bytes) % scale === 0) return `${bytes / scale} ${unit}`;
  }
  for (const [unit, scale] of DECIMAL) if (bytes >= scale) return `${significant(bytes / scale, 3)} ${unit}`;
  return `${bytes} B`;
}

/** "73.9 µs", "3.96 ms", "1.2 s", "850 ns": `digits` significant digits; "nan", "inf", "-inf". */
export function formatSeconds(seconds, digits = 3) {
  if (nonFinite(seconds)) return nonFinite(seconds);
  for (const [unit, scale] of [["s", 1], ["ms", 1e-3], ["µs", 1e-6]]) {
    if (seconds >= scale) return `${significant(seconds / scale, digits)} ${unit}`;
  }
  return `${significant(seconds * 1e9, digits)} ns`;
}
