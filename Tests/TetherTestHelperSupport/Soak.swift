import Foundation

/// Sizes of the contention tests: small enough for `make test` in CI, and the full size under
/// `make soak` (which sets `TETHER_SOAK=1`).
///
/// ```swift
/// let processes = Soak.size(ci: 4, soak: 8)
/// ```
public enum Soak {
  /// Whether the full-size runs were asked for.
  public static var isOn: Bool { ProcessInfo.processInfo.environment["TETHER_SOAK"] == "1" }

  /// `soak` under `make soak`, else `ci`.
  public static func size<T>(ci: T, soak: T) -> T { isOn ? soak : ci }
}
