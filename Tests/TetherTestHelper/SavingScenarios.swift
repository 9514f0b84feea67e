import Foundation
import Tether
import TetherFileStorage
import TetherFiles
import TetherTestHelperSupport

// File keys saving from a process of their own: killed, exiting, terminated, failing.
extension Helper {
  /// `saveLoop`: saves 1, 2, 3, … to `file` with `save()` (written at once) until killed.
  static func saveLoop(file: String) {
    let counter = Shared(wrappedValue: 0, .fileStorage(URL(filePath: file)))
    let done = DispatchSemaphore(value: 0)
    Task {
      while true {
        counter.withLock { $0 += 1 }
        do { try await counter.save() } catch { fail("save failed: \(error)") }
      }
    }
    done.wait()
  }

  /// `exitPending`: leaves 2 pending in the throttle window of `file`, then calls `exit(0)`;
  /// with `released`, once its holder (and the file's store with it) has gone.
  static func exitPending(file: String, released: Bool) {
    var value: Shared<Int>? = Shared(wrappedValue: 0, .fileStorage(URL(filePath: file)))
    value?.withLock { $0 = 1 }  // the leading write
    value?.withLock { $0 = 2 }  // pending until the window ends, a second from now
    if released { value = nil }
    withExtendedLifetime(value) { exit(0) }
  }

  /// `termPending`: like exit-pending, with `flushOnTermination`; creates `ready` and waits for
  /// SIGTERM.
  static func termPending(file: String, ready: String) {
    TetherSystem.flushOnTermination()
    let value = Shared(wrappedValue: 0, .fileStorage(URL(filePath: file)))
    value.withLock { $0 = 1 }
    value.withLock { $0 = 2 }
    write(ready, "ready")
    while true { sleep(60) }
  }

  /// `waitFor`: holds the key of `file`, creates `ready`, and waits until the key holds
  /// `expected` (exit 0), or 60 s pass.
  static func waitFor(file: String, value expected: Int, ready: String) {
    let value = Shared(wrappedValue: 0, .fileStorage(URL(filePath: file)))
    write(ready, "ready")
    // Generous: the parent notices `ready` by polling, and a loaded machine slows both.
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
      if value.wrappedValue == expected {
        var report = HelperReport()
        report.seen = expected
        emit(report)
        exit(0)
      }
      usleep(10_000)
    }
    fail("never saw \(expected); last \(value.wrappedValue)")
  }

  /// `write`: sets the key of `file` to `value` through `@Shared`, then exits (flushing).
  static func writeValue(file: String, value newValue: Int) {
    let value = Shared(wrappedValue: 0, .fileStorage(URL(filePath: file)))
    value.withLock { $0 = newValue }
    exit(0)
  }

  /// `readOnlyFolder`: a write into a folder of `folder` made read-only fails; once it is
  /// writable again, a flush writes the change that was kept.
  static func readOnlyFolder(folder root: String) {
    let folder = root + "/data"
    make(folder)
    let file = URL(filePath: folder + "/value.json")
    let value = Shared(wrappedValue: 0, .fileStorage(file))
    value.withLock { $0 = 1 }
    let semaphore = DispatchSemaphore(value: 0)
    Task {
      do { try await value.save() } catch { fail("first save failed: \(error)") }
      chmod(folder, 0o555)
      value.withLock { $0 = 2 }
      var failed = ""
      do {
        try await value.save()
      } catch {
        failed = String(cString: strerror((error as? SystemError)?.code ?? 0))
      }
      chmod(folder, 0o755)
      await TetherSystem.flush()
      var report = HelperReport()
      report.failed = failed
      report.afterFlush = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
      report.saveErrorCleared = value.saveError == nil
      emit(report)
      semaphore.signal()
    }
    semaphore.wait()
  }
}
