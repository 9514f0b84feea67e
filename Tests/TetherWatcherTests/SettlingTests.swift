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
}
