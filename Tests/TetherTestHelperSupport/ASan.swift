import Foundation

/// Sizes of the heaviest tests: the full size, and a smaller one under `make asan` (which sets
/// `TETHER_ASAN=1`), where AddressSanitizer checks every memory access and a test that takes a
/// minute in `make test` can take several times its time limit. Smaller, they still run.
///
/// ```swift
/// let count = ASan.size(plain: 10_000, asan: 2_000)
/// ```
public enum ASan {
  /// Whether the tests run under `make asan`.
  public static var isOn: Bool { ProcessInfo.processInfo.environment["TETHER_ASAN"] == "1" }

  /// `asan` under `make asan`, else `plain`.
  public static func size<T>(plain: T, asan: T) -> T { isOn ? asan : plain }
}
