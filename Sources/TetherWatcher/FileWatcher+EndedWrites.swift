import Dispatch
import TetherFiles

/// Checking a file at once when an event ends a write of it: a close after writing, or a
/// finished file renamed to its name. Such an event says the file is complete, so its change is
/// delivered without waiting for the settle delay, once nothing says otherwise.
///
/// What it cannot vouch for is left to the settle path (``check(_:firstEvent:)``),
/// which waits for quiet: a writer still holding the file open (an event after the end said
/// so), an empty file (most often a writer between truncating and writing), and a file missing
/// or unreadable (a removal, or the middle of an editor's rename dance, which must come out as
/// one change with the final content).
extension FileWatcher {
  /// Reads `path`, whose write an event just ended; delivers new bytes once every event queued
  /// before the read is taken up and none of them was the file's, and the file still holds
  /// them. Runs on the delivery queue.
  func checkEnded(_ path: String) {
    let endedAt = DispatchTime.now().uptimeNanoseconds
    let key = HashedPath(path)
    guard let before = state.withLock({ $0.files.readingPoint(key) }) else { return }
    let read = FileSnapshot.read(path)
    guard !before.beingWritten, case .data(let data) = read.content, !data.isEmpty else {
      return settler.dirty(path)
    }
    let outcome = state.withLock {
      $0.files.take(read, of: key, confirmed: false, readAfter: before.ownWritesLanded)
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
      afterQueuedEvents { [self] in
        confirm(path, read: read, at: before, firstEvent: endedAt)
      }
    }
  }
}
