import Foundation
import Observation
import Tether
import TetherFileStorage
import TetherTestHelperSupport

// A change of a value made while the same value is being changed on this thread: reported,
// and an assertion in a debug build, so it runs in a process of its own.
extension Helper {
  /// `changeInsideChange`: 1 is set through one holder; inside that change (its `withLock`, or
  /// an `onChange` it fires) a second holder of the key adds 100, which the outer change loses.
  static func changeInsideChange(file: String, fromOnChange: Bool) {
    let key = FileStorageKey<Int>.fileStorage(URL(filePath: file))
    let outer = Shared(wrappedValue: 0, key)
    let inner = Shared(wrappedValue: 0, key)
    if fromOnChange {
      withObservationTracking {
        _ = outer.wrappedValue
      } onChange: {
        inner.withLock { $0 += 100 }
      }
      outer.withLock { $0 = 1 }
    } else {
      outer.withLock { value in
        value = 1
        inner.withLock { $0 += 100 }
      }
    }
    var report = HelperReport()
    report.seen = outer.wrappedValue
    emit(report)
  }
}
