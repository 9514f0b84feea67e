import Foundation
import TetherLocking

/// The process's environment, read and changed under one lock: `setenv` may move the variable
/// table while `getenv` walks it, so a program (or a test) that changes variables while keys
/// read them does so through here.
package enum EnvironmentVariables {
  private static let lock = UnfairMutex(())

  /// The value of `variable`, or `nil` when it is not set.
  package static func value(of variable: String) -> String? {
    lock.withLock { _ in getenv(variable).map { String(cString: $0) } }
  }

  /// Sets `variable` to `value`, or unsets it for `nil`; throws the `errno` of a refusal (a
  /// name with `=`, say).
  package static func set(_ variable: String, to value: String?) throws {
    let status = lock.withLock { _ in
      value.map { setenv(variable, $0, 1) } ?? unsetenv(variable)
    }
    guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EINVAL) }
  }
}
