import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing
import TetherFiles
import TetherTesting
import TetherWatcher

/// A file is read once it is quiet, by its own clock as well as by its events: a check that
/// finds new bytes in a file changed within the settle delay reads it again later, so a writer
/// between truncating and writing is not taken at its word (its events may still be on the way).
@Suite struct SettlingTests {
  /// A modification time ahead of the clock makes the file look as if it were being written
  /// at every check: the new bytes wait the maximum wait, then come, once.
  ///
  /// They are written through a hard link in a folder no one watches, so no event ends the
  /// write; a change of the file's mode then makes the watched name's only event, which lets
  /// the file settle. (A rename into place or a close after writing would be believed at once,
  /// whatever the clock says.)
  @Test func newBytesInAFileThatLooksStillWrittenWaitTheMaximumWait() async throws {
    try await withTemporaryDirectory { folder in
      let watched = folder.appending(path: "watched")
      let elsewhere = folder.appending(path: "elsewhere")
      try FileManager.default.createDirectory(at: watched, withIntermediateDirectories: false)
      try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false)
      let file = watched.appending(path: "data.json")
      let alias = elsewhere.appending(path: "data.json")
      try Data("1".utf8).write(to: file)
      try #require(link(file.path, alias.path) == 0)
      let deliveries = Deliveries()
      let deliveredAt = Mutex<UInt64?>(nil)
      // The wait is counted from before the watch: starting one checks the file once settled,
      // and that check may be what finds the new bytes and begins their wait.
      let watchedAt = DispatchTime.now().uptimeNanoseconds
      let watch = FileWatcher.shared.watch(file.path) { content in
        deliveredAt.withLock { $0 = $0 ?? DispatchTime.now().uptimeNanoseconds }
        deliveries.record(content)
      }
      let handle = try FileHandle(forWritingTo: alias)
      try handle.write(contentsOf: Data("2".utf8))
      try handle.close()
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: alias.path)
      try #require(chmod(file.path, 0o640) == 0)
      await expectEventually(timeout: .seconds(30)) { deliveries.lastIs("2") }
      let delivered = deliveredAt.withLock { $0 } ?? 0
      let waited = Duration.nanoseconds(Int64(delivered) - Int64(watchedAt))
      #expect(waited >= FileWatcher.shared.maxWait, "delivered after \(waited)")
      // Nothing else was delivered before or since: a later edit is the next delivery.
      try Data("3".utf8).write(to: file)
      await expectEventually(timeout: .seconds(30)) { deliveries.lastIs("3") }
      #expect(deliveries.all == [.data(Data("2".utf8)), .data(Data("3".utf8))])
      watch.cancel()
    }
  }

  /// A writer that holds the file open and keeps rewriting it is not taken at the maximum wait
  /// in the middle of a write: what it leaves may be half written. Once it pauses for the
  /// settle delay (as a log that stays open does), what it wrote is delivered, before it
  /// closes the file.
  ///
  /// The writer is a thread of its own, pausing a few milliseconds between writes and writing
  /// its last at once: a pause as long as the settle delay would rightly have its half-done
  /// write taken.
  @Test func aWriterKeepingTheFileOpenIsNotTakenMidWriteAtTheMaximumWait() async throws {
    let watcher = FileWatcher.makeForTesting(
      settleDelay: .milliseconds(300), maxWait: .milliseconds(600))
    defer { watcher.stopForTesting() }
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "data.json")
      try Data("1".utf8).write(to: file)
      let deliveries = Deliveries()
      let watch = watcher.watch(file.path) { deliveries.record($0) }
      let writer = open(file.path, O_WRONLY | O_CLOEXEC)
      try #require(writer >= 0)
      let longestPause = Atomic(0)
      let thread = Thread {
        // Two and a half times the maximum wait of half-done writes, then the whole one.
        let end = ContinuousClock.now + .milliseconds(1500)
        var (step, last) = (0, ContinuousClock.now)
        while ContinuousClock.now < end {
          step += 1
          ftruncate(writer, 0)
          _ = "half \(step)".withCString { pwrite(writer, $0, strlen($0), 0) }
          usleep(3_000)
          let pause = Int((ContinuousClock.now - last) / .milliseconds(1))
          longestPause.store(max(pause, longestPause.load(ordering: .relaxed)), ordering: .relaxed)
          last = ContinuousClock.now
        }
        ftruncate(writer, 0)
        _ = "done".withCString { pwrite(writer, $0, 4, 0) }
      }
      thread.start()
      await expectEventually(timeout: .seconds(60)) { deliveries.lastIs("done") }
      close(writer)
      #expect(
        deliveries.all == [.data(Data("done".utf8))],
        "the writer's longest pause: \(longestPause.load(ordering: .relaxed)) ms")
      watch.cancel()
    }
  }
}
