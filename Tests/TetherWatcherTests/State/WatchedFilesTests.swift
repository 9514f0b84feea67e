import Foundation
import Testing
import TetherFiles
import TetherWatcher

/// A watched file's one view of what is on disk, without inotify: own writes, new bytes that
/// wait for confirmation, truncation.
@Suite struct WatchedFilesTests {
  let file = HashedPath("/data/a/n.json")
  let folder = HashedPath("/data/a")

  private func watched(
    _ known: FileContent, version: Int? = nil, told: Deliveries = Deliveries()
  ) -> WatchedFiles {
    var files = WatchedFiles()
    files.subscribe(file, in: folder, id: 0, deliver: { told.record($0.content) }) {
      read(known, version: version)
    }
    return files
  }

  @Test func anOwnWriteIsKnownAndNeverDelivered() {
    var files = watched(.data(Data("1".utf8)))
    let own = Data("2".utf8)
    files.expectOwnWrite(file, data: own)
    guard case .unchanged = files.take(read(.data(own)), of: file, confirmed: false) else {
      Issue.record("an own write must not be delivered")
      return
    }
    #expect(files.handedOver(file)?.content == .data(own))
  }

  /// A reset's removal: the file found missing while it is under way is this process's own
  /// change, which its holders already show; once it landed, a read from before is stale. A
  /// removal by someone else is delivered.
  @Test func anOwnRemovalIsKnownAndNeverDelivered() {
    var files = watched(.data(Data("1".utf8)))
    let landed = files.ownWritesLanded(file)
    files.expectOwnRemoval(file)
    guard case .unchanged = files.take(read(.missing), of: file, confirmed: true) else {
      Issue.record("an own removal must not be delivered")
      return
    }
    files.recordOwnRemoval(file)
    #expect(files.handedOver(file)?.content == .missing)
    guard
      case .stale = files.take(
        read(.data(Data("1".utf8))), of: file, confirmed: true, readAfter: landed)
    else {
      Issue.record("content read before an own removal landed must be read again")
      return
    }
    files.recordOwnWrite(file, data: Data("2".utf8), version: version(9))
    guard case .deliver = files.take(read(.missing), of: file, confirmed: true) else {
      Issue.record("a removal no one announced is delivered")
      return
    }
  }

  /// A check that read the file while one of this process's writes landed may hold what that
  /// write replaced: it reads again rather than tell anyone of it.
  @Test func contentReadBeforeAnOwnWriteLandedIsStale() {
    let told = Deliveries()
    var files = watched(.data(Data("1".utf8)), told: told)
    let landed = files.ownWritesLanded(file)
    let own = Data("2".utf8)
    files.expectOwnWrite(file, data: own)
    files.recordOwnWrite(file, data: own, version: version(9))
    // The check read the file before the write: it holds the `1` the write replaced.
    guard
      case .stale = files.take(
        read(.data(Data("1".utf8))), of: file, confirmed: true, readAfter: landed)
    else {
      Issue.record("content read before an own write landed must be read again")
      return
    }
    #expect(files.handedOver(file)?.content == .data(own))
    #expect(told.all.isEmpty)
  }

  /// A write expects to replace what its holders were given: an edit the watcher has taken
  /// and not finished delivering is not that, so the write finds it and does not replace it
  /// unseen. Once delivered it is, unless a write landed since.
  @Test func aWriteExpectsWhatWasHandedOverNotWhatIsBeingDelivered() {
    var files = watched(.data(Data("1".utf8)))
    let landed = files.ownWritesLanded(file) ?? 0
    let edit = FileContent.data(Data("3".utf8))
    guard case .deliver = files.take(read(edit), of: file, confirmed: true, readAfter: landed)
    else {
      Issue.record("confirmed new bytes are delivered")
      return
    }
    #expect(files.handedOver(file)?.content == .data(Data("1".utf8)), "while the edit is delivered")
    files.delivered(read(edit), of: file, readAfter: landed)
    #expect(files.handedOver(file)?.content == edit, "once it was delivered")
    let own = Data("4".utf8)
    files.expectOwnWrite(file, data: own)
    files.recordOwnWrite(file, data: own, version: version(9))
    files.delivered(read(edit), of: file, readAfter: landed)
    #expect(files.handedOver(file)?.content == .data(own), "a delivery read before a write landed")
  }

  @Test func newBytesWaitForConfirmationThenAreDeliveredOnce() {
    let told = Deliveries()
    var files = watched(.data(Data("1".utf8)), told: told)
    let edit = FileContent.data(Data("3".utf8))
    guard case .unconfirmed(let beingWritten) = files.take(read(edit), of: file, confirmed: false)
    else {
      Issue.record("new bytes wait for confirmation")
      return
    }
    #expect(!beingWritten)
    guard case .deliver(let subscribers) = files.take(read(edit), of: file, confirmed: true) else {
      Issue.record("confirmed new bytes are delivered")
      return
    }
    for subscriber in subscribers { subscriber(FileChange(content: edit, ownWritesLanded: 0)) }
    #expect(told.all == [edit])
    guard case .unchanged = files.take(read(edit), of: file, confirmed: true) else {
      Issue.record("known bytes are not delivered again")
      return
    }
  }

  @Test func anEmptyFileNoEventAccountsForIsBeingTruncated() {
    var files = watched(.data(Data("1".utf8)))
    guard
      case .unconfirmed(let truncating) = files.take(
        read(.data(Data())), of: file, confirmed: false)
    else {
      Issue.record("an empty file waits")
      return
    }
    #expect(truncating)
    let watched = files.noteEvent(file, writerStillOpen: false)
    #expect(watched)
    guard
      case .unconfirmed(let writing) = files.take(read(.data(Data())), of: file, confirmed: false)
    else {
      Issue.record("an empty file waits")
      return
    }
    #expect(!writing, "an event accounts for it, and its writer closed the file")
  }

  @Test func afterLostEventsEveryFileIsTakenAsBeingWritten() {
    var files = watched(.data(Data("1".utf8)))
    let taken = files.assumeAllBeingWritten()
    #expect(taken == [file])
    guard
      case .unconfirmed(let writing) = files.take(
        read(.data(Data("2".utf8))), of: file, confirmed: false)
    else {
      Issue.record("new bytes wait")
      return
    }
    #expect(writing)
  }

  /// A check at the end of a write delivers what it read only if the file's reading point is
  /// the same once the events queued before the read are taken up: any event of the file, an
  /// own write landing, or events lost, moves it; taking content does not.
  @Test func theReadingPointMovesWithEachEventOwnWriteAndLoss() throws {
    var files = watched(.data(Data("1".utf8)))
    let start = try #require(files.readingPoint(file))
    _ = files.take(read(.data(Data("2".utf8))), of: file, confirmed: true)
    #expect(files.readingPoint(file) == start)
    _ = files.noteEvent(file, writerStillOpen: false)
    let afterEvent = try #require(files.readingPoint(file))
    #expect(afterEvent != start)
    #expect(!afterEvent.beingWritten)
    files.recordOwnWrite(file, data: Data("3".utf8), version: version(9))
    let afterOwnWrite = try #require(files.readingPoint(file))
    #expect(afterOwnWrite != afterEvent)
    _ = files.assumeAllBeingWritten()
    let afterLoss = try #require(files.readingPoint(file))
    #expect(afterLoss != afterOwnWrite)
    #expect(afterLoss.movedOnlyByLosses(since: afterOwnWrite))
    #expect(!afterOwnWrite.movedOnlyByLosses(since: afterEvent), "an own write landed")
    #expect(!afterEvent.movedOnlyByLosses(since: start), "an event of the file")
    #expect(files.readingPoint(HashedPath("/data/a/other.json")) == nil)
  }

  @Test func theLastSubscriberGoingTakesTheFileAndGivesItsFolder() {
    var files = watched(.missing)
    files.subscribe(file, in: folder, id: 1, deliver: { _ in }) {
      Issue.record("a watched file is not read again")
      return read(.missing)
    }
    let first = files.unsubscribe(file, id: 0)
    let last = files.unsubscribe(file, id: 1)
    #expect(first == nil)
    #expect(last == folder)
    #expect(files.count == 0)
  }

  /// The bytes the file held, saved again (an editor writing the file as it was), are an edit:
  /// they wait for confirmation as any new bytes do, then are delivered. The same bytes read
  /// again from the same version are not, nor a version learned for bytes known without one.
  @Test func theSameBytesInANewVersionAreAnEdit() {
    let told = Deliveries()
    var files = watched(.data(Data("1".utf8)), told: told)
    guard
      case .unchanged = files.take(
        read(.data(Data("1".utf8)), version: 1), of: file, confirmed: true)
    else {
      Issue.record("a version learned for known bytes is no change")
      return
    }
    guard
      case .unchanged = files.take(
        read(.data(Data("1".utf8)), version: 1), of: file, confirmed: false)
    else {
      Issue.record("the same version read again is no change")
      return
    }
    let saved = read(.data(Data("1".utf8)), version: 2)
    guard case .unconfirmed = files.take(saved, of: file, confirmed: false) else {
      Issue.record("the same bytes saved again wait for confirmation")
      return
    }
    guard case .deliver(let subscribers) = files.take(saved, of: file, confirmed: true) else {
      Issue.record("the same bytes saved again are delivered")
      return
    }
    for subscriber in subscribers {
      subscriber(FileChange(content: saved.content, ownWritesLanded: 0))
    }
    #expect(told.all == [.data(Data("1".utf8))])
    files.delivered(saved, of: file, readAfter: 0)
    #expect(files.handedOver(file)?.version == version(2))
  }

  /// This process's own write is known in the version it made: a read of it is no change, and
  /// the same bytes saved over it by someone else are.
  @Test func anOwnWriteIsKnownInItsVersion() {
    var files = watched(.data(Data("1".utf8)), version: 1)
    let own = Data("2".utf8)
    files.expectOwnWrite(file, data: own)
    files.recordOwnWrite(file, data: own, version: version(5))
    guard case .unchanged = files.take(read(.data(own), version: 5), of: file, confirmed: false)
    else {
      Issue.record("an own write read back is no change")
      return
    }
    guard case .deliver = files.take(read(.data(own), version: 6), of: file, confirmed: true)
    else {
      Issue.record("the same bytes saved over an own write are an edit")
      return
    }
  }

  private func read(_ content: FileContent, version number: Int? = nil) -> FileSnapshot {
    FileSnapshot(content, version: number.map(version))
  }

  private func version(_ number: Int) -> FileVersion {
    FileVersion(device: 1, inode: 7, size: 1, modifiedSeconds: number, modifiedNanoseconds: 0)
  }
}
