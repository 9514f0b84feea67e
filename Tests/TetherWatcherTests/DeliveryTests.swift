import Foundation
import Synchronization
import Testing
import TetherFiles
import TetherTestHelperSupport
import TetherTesting
import TetherWatcher

/// Collects what a watch delivers.
final class Deliveries: Sendable {
  private let received = Mutex<[FileContent]>([])

  var all: [FileContent] { received.withLock { $0 } }
  var last: FileContent? { all.last }
  var count: Int { all.count }

  func record(_ content: FileContent) { received.withLock { $0.append(content) } }

  /// Whether the last delivery is `text`.
  func lastIs(_ text: String) -> Bool { last == .data(Data(text.utf8)) }
}

@Suite struct DeliveryTests {
  @Test func anInPlaceWriteIsDeliveredOnceWithTheFinalContent() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "data.json")
      try Data("1".utf8).write(to: file)
      let deliveries = Deliveries()
      let watch = FileWatcher.shared.watch(file.path) { deliveries.record($0) }
      try Data("2".utf8).write(to: file)
      await expectEventually(timeout: .seconds(30)) { deliveries.lastIs("2") }
      #expect(deliveries.count == 1, "\(deliveries.all)")
      withExtendedLifetime(watch) {}
    }
  }
}

extension DeliveryTests {
  @Test func ownWritesAreNeverDeliveredButTheNextExternalEditIs() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "data.json")
      let marker = folder.appending(path: "marker.json")
      let deliveries = Deliveries()
      let markers = Deliveries()
      let watch = FileWatcher.shared.watch(file.path) { deliveries.record($0) }
      let markerWatch = FileWatcher.shared.watch(marker.path) { markers.record($0) }
      for value in 0..<200 {
        let data = Data("own \(value)".utf8)
        try watch.replacing(with: data) { _ in
          try data.write(to: file, options: .atomic)
          return try #require(FileVersion.of(file.path))
        }
      }
      // Written after the own writes, so its delivery means their check has run (deliveries
      // are in order, and theirs settled first).
      try Data("marker".utf8).write(to: marker)
      await expectEventually(timeout: .seconds(30)) { markers.lastIs("marker") }
      #expect(deliveries.count == 0, "own writes came back: \(deliveries.all)")
      try Data("external".utf8).write(to: file)
      await expectEventually(timeout: .seconds(30)) { deliveries.lastIs("external") }
      #expect(deliveries.count == 1)
      withExtendedLifetime(markerWatch) {}
    }
  }

  @Test func aDeletedFileIsDeliveredAsMissing() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "data.json")
      try Data("1".utf8).write(to: file)
      let deliveries = Deliveries()
      let watch = FileWatcher.shared.watch(file.path) { deliveries.record($0) }
      try FileManager.default.removeItem(at: file)
      await expectEventually(timeout: .seconds(30)) { deliveries.last == .missing }
      withExtendedLifetime(watch) {}
    }
  }

  @Test func aCancelledWatchReceivesNothingMore() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "data.json")
      let cancelled = Deliveries()
      let live = Deliveries()
      let watch = FileWatcher.shared.watch(file.path) { cancelled.record($0) }
      let control = FileWatcher.shared.watch(file.path) { live.record($0) }
      watch.cancel()
      try Data("1".utf8).write(to: file)
      await expectEventually(timeout: .seconds(30)) { live.lastIs("1") }
      #expect(cancelled.count == 0)
      withExtendedLifetime(control) {}
    }
  }

  @Test func theWatchedFolderDeletedThenRecreatedWithTheFile() async throws {
    try await withTemporaryDirectory { root in
      let folder = root.appending(path: "deep/folder")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let file = folder.appending(path: "data.json")
      try Data("1".utf8).write(to: file)
      let deliveries = Deliveries()
      let watch = FileWatcher.shared.watch(file.path) { deliveries.record($0) }
      try FileManager.default.removeItem(at: root.appending(path: "deep"))
      await expectEventually(timeout: .seconds(30)) { deliveries.last == .missing }
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try Data("2".utf8).write(to: file)
      await expectEventually(timeout: .seconds(30)) { deliveries.lastIs("2") }
      try Data("3".utf8).write(to: file)
      await expectEventually(timeout: .seconds(30)) { deliveries.lastIs("3") }
      withExtendedLifetime(watch) {}
    }
  }

  @Test func aFolderThatDoesNotExistYetIsWatchedWhenItAppears() async throws {
    try await withTemporaryDirectory { root in
      let file = root.appending(path: "later/data.json")
      let deliveries = Deliveries()
      let watch = FileWatcher.shared.watch(file.path) { deliveries.record($0) }
      try FileManager.default.createDirectory(
        at: root.appending(path: "later"), withIntermediateDirectories: true)
      try Data("1".utf8).write(to: file)
      await expectEventually(timeout: .seconds(30)) { deliveries.lastIs("1") }
      withExtendedLifetime(watch) {}
    }
  }

  @Test func theEventTapSeesRawEventsBeforeSettling() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "tapped.json")
      let tapped = Deliveries()
      let watch = FileWatcher.shared.watch(file.path) { _ in }
      FileWatcher.shared.setEventTap { path in
        if path == file.path { tapped.record(.missing) }
      }
      defer { FileWatcher.shared.setEventTap(nil) }
      try Data("1".utf8).write(to: file)
      await expectEventually(timeout: .seconds(30)) { tapped.count > 0 }
      withExtendedLifetime(watch) {}
    }
  }

  /// Eight threads adding and removing watches while a watched folder floods the watcher with
  /// events: in a process of its own, since the flood holds up every delivery of the process.
  @Test func eightThreadsAddingAndRemovingWatchesUnderAnEventFlood() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.watchChurnUnderFlood(folder: root.path))
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.stood == true, "the flooded folder's watch stands: \(result.output)")
      #expect(result.report.narrowed == true, "root's watch narrowed to its moves")
      #expect(result.report.delivered == 1, "the watcher still works afterwards")
    }
  }
}

extension DeliveryTests {
  /// Eight threads making and dropping file keys (each adds and cancels a watch) while the
  /// watcher has events to take up: a watched file's change arrives while they go on. Taking
  /// each event up under the lock they all take, the watcher fell seconds behind, and the
  /// change came once they stopped.
  @Test func aChangeArrivesWhileEightThreadsMakeAndDropKeys() async throws {
    try await withTemporaryDirectory { root in
      let result = try await runHelper(.keyChurn(folder: root.path))
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.report.delivered == 1, "\(result.output)")
      #expect(result.report.deliveredWhileChurning == true, "\(result.output)")
    }
  }

  /// A baseline read before a change the watcher then saw, for a file it did not know yet:
  /// the watch must not trust that baseline.
  @Test func aChangeSeenBetweenTheBaselineAndTheWatchIsDelivered() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "late.json")
      let neighbour = folder.appending(path: "neighbour.json")
      try Data("1".utf8).write(to: file)
      try Data("a".utf8).write(to: neighbour)
      let seen = Deliveries()
      let neighbourWatch = FileWatcher.shared.watch(neighbour.path) { seen.record($0) }
      let mark = FileWatcher.shared.mark(file.path)
      #expect(mark != nil, "the folder is watched")
      let baseline = FileContent.read(file.path)
      try Data("2".utf8).write(to: file)
      // Events are taken up in order: once the neighbour's is, so is the file's.
      try Data("b".utf8).write(to: neighbour)
      await expectEventually(timeout: .seconds(30)) { seen.lastIs("b") }
      let deliveries = Deliveries()
      let watch = FileWatcher.shared.watch(file.path, baseline: baseline, readSince: mark) {
        deliveries.record($0)
      }
      await expectEventually(timeout: .seconds(30)) { deliveries.lastIs("2") }
      withExtendedLifetime((watch, neighbourWatch)) {}
    }
  }

  /// The same with nothing in between: the watch takes the baseline as it is, and later edits
  /// arrive as usual.
  @Test func aWatchFromAnUntouchedBaselineDeliversTheNextEdit() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "quiet.json")
      let neighbour = folder.appending(path: "neighbour.json")
      try Data("1".utf8).write(to: file)
      try Data("a".utf8).write(to: neighbour)
      let neighbourWatch = FileWatcher.shared.watch(neighbour.path) { _ in }
      let mark = FileWatcher.shared.mark(file.path)
      let baseline = FileContent.read(file.path)
      let deliveries = Deliveries()
      let watch = FileWatcher.shared.watch(file.path, baseline: baseline, readSince: mark) {
        deliveries.record($0)
      }
      try Data("3".utf8).write(to: file)
      await expectEventually(timeout: .seconds(30)) { deliveries.lastIs("3") }
      #expect(deliveries.count == 1)
      withExtendedLifetime((watch, neighbourWatch)) {}
    }
  }
}

extension DeliveryTests {
  /// Checks run one at a time on the watcher's delivery queue: a FIFO put in the place of a
  /// watched file must be delivered as an error, not block that queue for every other file.
  @Test func aFileReplacedByAFIFOIsDeliveredAsAnErrorAndOtherFilesStillAre() async throws {
    try await withTemporaryDirectory { folder in
      let (a, b) = (folder.appending(path: "a.json"), folder.appending(path: "b.json"))
      try Data("1".utf8).write(to: a)
      let (first, second) = (Deliveries(), Deliveries())
      let watches = [
        FileWatcher.shared.watch(a.path) { first.record($0) },
        FileWatcher.shared.watch(b.path) { second.record($0) },
      ]
      try FileManager.default.removeItem(at: a)
      try makeFIFO(at: a)
      // Frees the queue, should it be blocked, once the test is over.
      defer { releaseFIFO(a) }
      await expectEventually(timeout: .seconds(30)) {
        first.last == .unreadable(.notRegular(path: a.path, type: .fifo))
      }
      try Data("2".utf8).write(to: b)
      await expectEventually(timeout: .seconds(30)) { second.lastIs("2") }
      withExtendedLifetime(watches) {}
    }
  }
}
