import Foundation
import Glibc
import Testing
import TetherFiles
import TetherTesting
import TetherWatcher

/// An event that ends a write — a close after writing, a finished file renamed into place —
/// has the file delivered at once; everything else waits for the settle delay.
///
/// Each test runs a watcher of its own whose settle delay outlasts every wait here: what
/// arrives within them came of the end of a write, and what must settle cannot arrive.
@Suite(.timeLimit(.minutes(2))) struct WriteEndTests {
  /// Far longer than ``withinTheSettleDelay``: a test ends long before anything settles.
  static let settleDelay: Duration = .seconds(90)
  /// How long a test waits for what an ended write delivers.
  static let withinTheSettleDelay: Duration = .seconds(20)

  /// Runs `body` with `data.json` (holding `1`) in `folder` watched by a watcher of its own
  /// with a long settle delay, and what that watch delivers.
  func withWatchedFile(
    in folder: URL, _ body: (FileWatcher, URL, Deliveries) async throws -> Void
  ) async throws {
    let watcher = FileWatcher.makeForTesting(settleDelay: Self.settleDelay)
    defer { watcher.stopForTesting() }
    let file = folder.appending(path: "data.json")
    try Data("1".utf8).write(to: file)
    let deliveries = Deliveries()
    let watch = watcher.watch(file.path) { deliveries.record($0) }
    try await body(watcher, file, deliveries)
    watch.cancel()
  }

  @Test func aFileRenamedIntoPlaceIsDeliveredWithoutSettling() async throws {
    try await withTemporaryDirectory { folder in
      try await withWatchedFile(in: folder) { _, file, deliveries in
        let staged = folder.appending(path: ".data.json.new")
        try Data("2".utf8).write(to: staged)
        try #require(rename(staged.path, file.path) == 0)
        await expectEventually(timeout: Self.withinTheSettleDelay) { deliveries.lastIs("2") }
        #expect(deliveries.all == [.data(Data("2".utf8))])
      }
    }
  }

  @Test func aFileWrittenAndClosedIsDeliveredWithoutSettling() async throws {
    try await withTemporaryDirectory { folder in
      try await withWatchedFile(in: folder) { _, file, deliveries in
        // open(O_TRUNC), write, close: in place.
        try Data("2".utf8).write(to: file)
        await expectEventually(timeout: Self.withinTheSettleDelay) { deliveries.lastIs("2") }
        #expect(deliveries.all == [.data(Data("2".utf8))])
      }
    }
  }

  /// A write's temp file renamed to the name says nothing of a writer holding the file open:
  /// a write that swapped the file out and, finding someone else's change in it, swapped it
  /// back (``AtomicFile``) returns the very file that writer is still at work on.
  @Test func aFileSwappedOutAndBackByAWriteStillWaitsForItsWriter() async throws {
    try await withTemporaryDirectory { folder in
      try await withWatchedFile(in: folder) { watcher, file, deliveries in
        let neighbour = folder.appending(path: "neighbour.json")
        let neighbours = Deliveries()
        let neighbourWatch = watcher.watch(neighbour.path) { neighbours.record($0) }
        let writer = open(file.path, O_WRONLY | O_CLOEXEC)
        try #require(writer >= 0)
        #expect("2".withCString { pwrite(writer, $0, 1, 0) } == 1)
        let away = folder.appending(path: ".data.json.tether-Ab12Cd")
        try #require(rename(file.path, away.path) == 0)
        try #require(rename(away.path, file.path) == 0)
        let staged = folder.appending(path: ".neighbour.json.new")
        try Data("n".utf8).write(to: staged)
        try #require(rename(staged.path, neighbour.path) == 0)
        await expectEventually(timeout: Self.withinTheSettleDelay) { neighbours.lastIs("n") }
        #expect(deliveries.count == 0, "delivered while its writer held it open: \(deliveries.all)")
        close(writer)
        await expectEventually(timeout: Self.withinTheSettleDelay) { deliveries.lastIs("2") }
        #expect(deliveries.all == [.data(Data("2".utf8))])
        neighbourWatch.cancel()
      }
    }
  }

  /// A writer that has written and still holds the file open may not be done: its bytes wait
  /// (here, for its close). A neighbour renamed into place afterwards is delivered first,
  /// though it changed later: the watcher took up the writer's events before the neighbour's.
  @Test func aWriterHoldingTheFileOpenIsDeliveredOnlyWhenItCloses() async throws {
    try await withTemporaryDirectory { folder in
      try await withWatchedFile(in: folder) { watcher, file, deliveries in
        let neighbour = folder.appending(path: "neighbour.json")
        let neighbours = Deliveries()
        let neighbourWatch = watcher.watch(neighbour.path) { neighbours.record($0) }
        let writer = open(file.path, O_WRONLY | O_CLOEXEC)
        try #require(writer >= 0)
        #expect("2".withCString { pwrite(writer, $0, 1, 0) } == 1)
        let staged = folder.appending(path: ".neighbour.json.new")
        try Data("n".utf8).write(to: staged)
        try #require(rename(staged.path, neighbour.path) == 0)
        await expectEventually(timeout: Self.withinTheSettleDelay) { neighbours.lastIs("n") }
        #expect(deliveries.count == 0, "delivered while its writer held it open: \(deliveries.all)")
        close(writer)
        await expectEventually(timeout: Self.withinTheSettleDelay) { deliveries.lastIs("2") }
        #expect(deliveries.all == [.data(Data("2".utf8))])
        neighbourWatch.cancel()
      }
    }
  }

  /// A writer that closes the file and at once opens it again, empties it and writes part of
  /// its next content (still holding it open) has not ended that write: the close's check,
  /// taking up both writes' events together, reads the half-written file and must not deliver
  /// it. Only the second close does, with the whole content.
  @Test func aCloseFollowedByAnotherWriteStillOpenIsNotDelivered() async throws {
    try await withTemporaryDirectory { folder in
      try await withWatchedFile(in: folder) { watcher, file, deliveries in
        watcher.pauseForTesting()
        try Data("22".utf8).write(to: file)
        let writer = open(file.path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        try #require(writer >= 0)
        #expect("3".withCString { write(writer, $0, 1) } == 1)
        watcher.resumeForTesting()
        // What the first close's check read (the half-written `3`) is never delivered; `22`
        // may be, when the check ran before the second write.
        let neighbour = folder.appending(path: "neighbour.json")
        let neighbours = Deliveries()
        let neighbourWatch = watcher.watch(neighbour.path) { neighbours.record($0) }
        try Data("n".utf8).write(to: neighbour)
        await expectEventually(timeout: Self.withinTheSettleDelay) { neighbours.lastIs("n") }
        #expect(!deliveries.all.contains(.data(Data("3".utf8))), "\(deliveries.all)")
        #expect("3".withCString { write(writer, $0, 1) } == 1)
        close(writer)
        await expectEventually(timeout: Self.withinTheSettleDelay) { deliveries.lastIs("33") }
        #expect(!deliveries.all.contains(.data(Data("3".utf8))), "\(deliveries.all)")
        neighbourWatch.cancel()
      }
    }
  }

  /// A file emptied and closed is most often a writer between truncating and writing (a shell's
  /// `>` then `>>`): its close delivers nothing, the empty file settles (here, never), and the
  /// write that fills it is delivered at its close.
  @Test func aFileEmptiedAndClosedIsLeftToSettle() async throws {
    try await withTemporaryDirectory { folder in
      try await withWatchedFile(in: folder) { watcher, file, deliveries in
        let emptied = open(file.path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        try #require(emptied >= 0)
        close(emptied)
        // The neighbour's delivery comes after every check of the file's close.
        let neighbour = folder.appending(path: "neighbour.json")
        let neighbours = Deliveries()
        let neighbourWatch = watcher.watch(neighbour.path) { neighbours.record($0) }
        try Data("n".utf8).write(to: neighbour)
        await expectEventually(timeout: Self.withinTheSettleDelay) { neighbours.lastIs("n") }
        #expect(deliveries.count == 0, "\(deliveries.all)")
        let handle = try FileHandle(forWritingTo: file)
        try handle.write(contentsOf: Data("2".utf8))
        try handle.close()
        await expectEventually(timeout: Self.withinTheSettleDelay) { deliveries.lastIs("2") }
        #expect(deliveries.all == [.data(Data("2".utf8))])
        neighbourWatch.cancel()
      }
    }
  }

  /// Each is one change, of the final content, as soon as the new file is complete: never the
  /// file missing, which waits to settle (and the new file comes first).
  @Test(arguments: Dance.allCases)
  func aSaveThatTakesTheFileAwayIsOneChangeOfTheFinalContent(_ dance: Dance) async throws {
    try await withTemporaryDirectory { folder in
      try await withWatchedFile(in: folder) { _, file, deliveries in
        try dance.save(file)
        await expectEventually(timeout: Self.withinTheSettleDelay) { deliveries.lastIs("2") }
        #expect(deliveries.all == [.data(Data("2".utf8))])
      }
    }
  }
}

/// Ways of saving that take the file away before the new one is in place.
enum Dance: String, CaseIterable, Sendable {
  case moveAwayWriteMoveBack = "mv away, write, mv back"
  case backupRenameWriteNew = "rename to a backup, write a new file (vim)"
  case removeRecreate = "rm, recreate"

  /// Turns the `1` in `file` into `2`.
  func save(_ file: URL) throws {
    let folder = file.deletingLastPathComponent()
    switch self {
    case .moveAwayWriteMoveBack:
      let away = folder.appending(path: "away")
      try #require(rename(file.path, away.path) == 0)
      try Data("2".utf8).write(to: away)
      try #require(rename(away.path, file.path) == 0)
    case .backupRenameWriteNew:
      let backup = folder.appending(path: "data.json~")
      try #require(rename(file.path, backup.path) == 0)
      try Data("2".utf8).write(to: file)
      try FileManager.default.removeItem(at: backup)
    case .removeRecreate:
      try FileManager.default.removeItem(at: file)
      try Data("2".utf8).write(to: file)
    }
  }
}
