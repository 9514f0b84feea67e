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
  @Test func newBytesInAFileThatLooksStillWrittenWaitTheMaximumWait() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "data.json")
      let staged = folder.appending(path: "staged")
      try Data("1".utf8).write(to: file)
      let deliveries = Deliveries()
      let deliveredAt = Mutex<UInt64?>(nil)
      // The watch checks the file once itself: the change may join that burst.
      let watchedAt = DispatchTime.now().uptimeNanoseconds
      let watch = FileWatcher.shared.watch(file.path) { content in
        deliveredAt.withLock { $0 = $0 ?? DispatchTime.now().uptimeNanoseconds }
        deliveries.record(content)
      }
      try Data("2".utf8).write(to: staged)
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: staged.path)
      // The new bytes and their stamp arrive together, by rename.
      try #require(rename(staged.path, file.path) == 0)
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
