import Foundation
import Synchronization
import Tether
import TetherDefaults
import TetherTestHelperSupport

// Defaults keys from a process of their own: exiting with a change pending, and two processes
// writing one file.
extension Helper {
  /// `defaultsExitPending`: exit-pending for a defaults key `count` of the store at `file`.
  static func defaultsExitPending(file: String, released: Bool) {
    let store = DefaultsStore(file: URL(filePath: file))
    var value: Shared<Int>? = Shared(wrappedValue: 0, .defaults("count", store: store))
    value?.withLock { $0 = 1 }
    value?.withLock { $0 = 2 }
    if released { value = nil }
    withExtendedLifetime(value) { exit(0) }
  }

  /// `defaultsSet`: sets an Int through `@Shared` and exits without flushing by hand
  /// (UserDefaults on Linux loses such values).
  static func defaultsSet(file: String, key: String, value newValue: Int) {
    let store = DefaultsStore(file: URL(filePath: file))
    let value = Shared(wrappedValue: 0, .defaults(key, store: store))
    value.withLock { $0 = newValue }
    exit(0)
  }

  /// `defaultsMany`: writes keys `prefix`0…`prefix`(`count`-1), each saved at once, and reports
  /// when each save returned (`CLOCK_MONOTONIC`, the same in every process). With `go`, it
  /// makes `go`.`prefix`.ready and starts once `go` exists, so two writers start together.
  static func defaultsMany(file: String, prefix: String, count: Int, go: String?) {
    let store = DefaultsStore(file: URL(filePath: file))
    if let go {
      write("\(go).\(prefix).ready", "")
      waitFor(go)
    }
    let done = DispatchSemaphore(value: 0)
    let saved = Mutex<[UInt64]>([])
    Task {
      // Held, as an app holds its values (releasing the file's last holder unwatches it).
      var held: [Shared<Int>] = []
      for index in 0..<count {
        let value = Shared(wrappedValue: -1, .defaults("\(prefix)\(index)", store: store))
        held.append(value)
        value.withLock { $0 = index }
        do { try await value.save() } catch { fail("save \(index) failed: \(error)") }
        saved.withLock { $0.append(monotonicNanoseconds()) }
      }
      withExtendedLifetime(held) {}
      done.signal()
    }
    done.wait()
    var report = HelperReport()
    report.saved = saved.withLock { $0 }
    emit(report)
  }

  static func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
  }
}

extension Helper {
  /// `defaultsCount`: `count` × (`withLock { $0 += 1 }`, `save()`) of the registered key `key`,
  /// mapped to the defaults file `file`.
  static func defaultsCount(file: String, key: String, count: Int, throttle: String, go: String) {
    let config = """
      [keys]
      * = defaults

      [strategy.defaults]
      file = \(file)
      throttle = \(throttle)
      """
    let done = DispatchSemaphore(value: 0)
    Task {
      var report = HelperReport()
      do {
        try await TetherSystem.withBootstrap(
          configuration: .string(config), strategies: [DefaultsStrategy.self]
        ) {
          let value = Shared(wrappedValue: 0, .registered(key))
          write("\(go).\(key).ready", "")
          waitFor(go)
          var highest = value.wrappedValue
          var wentBack = 0
          var failures: [String: Int] = [:]
          for _ in 0..<count {
            let now = value.withLock { value -> Int in
              value += 1
              return value
            }
            if now <= highest { wentBack += 1 }
            highest = max(highest, now)
            do {
              try await value.save()
            } catch {
              failures["\(error)", default: 0] += 1
            }
          }
          report.seen = value.wrappedValue
          report.wentBack = wentBack
          report.saveFailures = failures
        }
      } catch {
        fail("bootstrap: \(error)")
      }
      emit(report)
      done.signal()
    }
    done.wait()
  }

  /// Waits until `path` exists (a minute at most).
  static func waitFor(_ path: String) {
    let deadline = monotonicNanoseconds() + 60_000_000_000
    while !FileManager.default.fileExists(atPath: path) {
      if monotonicNanoseconds() > deadline { fail("\(path) never appeared") }
      usleep(1000)
    }
  }
}
