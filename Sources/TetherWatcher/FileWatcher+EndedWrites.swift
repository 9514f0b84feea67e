import TetherFiles

/// Checking a file at once when an event ends a write of it: a close after writing, or a
/// finished file renamed to its name. Such an event says the file is complete, so its change is
/// delivered without waiting for the settle delay, once nothing says otherwise.
///
/// What it cannot vouch for is left to the settle path (``check(_:firstEvent:caughtUp:)``),
/// which waits for quiet: a writer still holding the file open (an event after the end said
/// so), an empty file (most often a writer between truncating and writing), and a file missing
/// or unreadable (a removal, or the middle of an editor's rename dance, which must come out as
/// one change with the final content).
extension FileWatcher {
  /// Reads `path`, whose write an event just ended; delivers new bytes once every event queued
  /// before the read is taken up and none of them was the file's, and the file still holds
  /// them. Runs on the delivery queue.
  func checkEnded(_ path: String) {
    let key = HashedPath(path)
    guard let before = state.withLock({ $0.files.readingPoint(key) }) else { return }
    let content = FileContent.read(path)
    guard !before.beingWritten, case .data(let data) = content, !data.isEmpty else {
      return settler.dirty(path)
    }
    let outcome = state.withLock {
      $0.files.take(content, of: key, confirmed: false, readAfter: before.ownWritesLanded)
    }
    switch outcome {
    case .unchanged, .deliver:
      // Known already, or this process's own write (new bytes are never delivered unconfirmed).
      return
    case .stale:
      return checkEnded(path)
    case .unconfirmed(let beingWritten):
      guard !beingWritten else { return settler.dirty(path) }
      // The thread may not have read every event the kernel queued before the read: another
      // writer's truncation and first bytes, say. Once it has, the file's reading point says
      // whether any of them was this file's.
      afterQueuedEvents { [self] in confirmEnded(path, read: content, at: before) }
    }
  }

  /// Delivers `content`, read at `before`, if the file stands there still with every event
  /// queued before that read taken up, and holds `content` still: read again now, so that no
  /// check that ran meanwhile delivered something newer first, and a write under way during
  /// the first read (whose event the kernel queues only once it is done) is seen. Otherwise the
  /// file settles.
  private func confirmEnded(
    _ path: String, read content: FileContent, at before: WatchedFiles.ReadingPoint
  ) {
    let key = HashedPath(path)
    guard state.withLock({ $0.files.readingPoint(key) }) == before else {
      return settler.dirty(path)
    }
    let again = FileContent.read(path)
    guard again == content else { return settler.dirty(path) }
    let outcome = state.withLock {
      $0.files.take(again, of: key, confirmed: true, readAfter: before.ownWritesLanded)
    }
    switch outcome {
    case .deliver(let subscribers):
      deliver(again, of: key, to: subscribers, readAfter: before.ownWritesLanded)
    case .stale:
      checkEnded(path)
    case .unchanged, .unconfirmed:
      return
    }
  }
}
