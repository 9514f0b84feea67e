import Foundation
import TetherFiles

/// Checking a settled file and delivering its content.
extension FileWatcher {
  /// Re-reads `path` and delivers its content if it is neither what was last seen nor one of
  /// our own writes. Runs on the delivery queue, so deliveries are in order.
  ///
  /// `firstEvent` is when the burst that led here began. New bytes in a file that changed less
  /// than the settle delay ago are read again later (within the maximum wait): the events of
  /// that change may not have reached the settler yet, and the bytes may be a writer's half-done
  /// work, such as a file truncated and not yet written.
  func check(_ path: String, firstEvent: UInt64) {
    let key = HashedPath(path)
    guard let before = state.withLock({ $0.files.readingPoint(key) }) else { return }
    let read = FileSnapshot.read(path)
    let outcome = state.withLock {
      $0.files.take(read, of: key, confirmed: false, readAfter: before.ownWritesLanded)
    }
    switch outcome {
    case .unchanged:
      return
    case .stale:
      // One of this process's writes landed while the file was read: what was read may be
      // what it replaced. Read again.
      return check(path, firstEvent: firstEvent)
    case .deliver(let subscribers):
      // Gone or unreadable, once settled: no half-written bytes to wait for.
      deliver(read, of: key, to: subscribers, readAfter: before.ownWritesLanded)
    case .unconfirmed(let beingWritten):
      let empty = read.content == .data(Data())
      if postpone(path, beingWritten: beingWritten, empty: empty, firstEvent: firstEvent) {
        return
      }
      // The thread may not have read every event the kernel queued before this read (it lags
      // under load), such as the truncation of a writer that has yet to write: what was read is
      // delivered once it has, if none of them was the file's.
      afterQueuedEvents { [self] in
        confirm(path, read: read, at: before, firstEvent: firstEvent)
      }
    }
  }

  /// Delivers what was `read` at `before`, if the file stands there still with every event
  /// queued before that read taken up, and holds the same version still: read again now, so
  /// that no check that ran meanwhile delivered something newer first, and a write under way
  /// during the first read (whose event the kernel queues only once it is done) is seen.
  /// Otherwise the file settles again: a writer is at work on it.
  ///
  /// Events lost meanwhile (an overflow) take the file as being written, within the burst that
  /// began at `firstEvent`, not as a new one: it is read again once the maximum wait has passed
  /// since then and it has been quiet for the settle delay. A flood that overflows the queue
  /// again and again would otherwise hold a change back for as long as the flood lasts.
  func confirm(
    _ path: String, read: FileSnapshot, at before: WatchedFiles.ReadingPoint, firstEvent: UInt64
  ) {
    let key = HashedPath(path)
    guard let now = state.withLock({ $0.files.readingPoint(key) }) else { return }
    if now != before {
      guard now.movedOnlyByLosses(since: before) else { return settler.dirty(path) }
      let empty = read.content == .data(Data())
      if postpone(path, beingWritten: true, empty: empty, firstEvent: firstEvent) { return }
    }
    let again = FileSnapshot.read(path)
    guard again.isSame(as: read) else { return settler.dirty(path) }
    let outcome = state.withLock {
      $0.files.take(again, of: key, confirmed: true, readAfter: before.ownWritesLanded)
    }
    switch outcome {
    case .deliver(let subscribers):
      deliver(again, of: key, to: subscribers, readAfter: before.ownWritesLanded)
    case .stale:
      settler.dirty(path)
    case .unchanged, .unconfirmed:
      return
    }
  }

  /// Gives `subscribers` the content `read` of `key`, when `landed` of this process's writes of
  /// it had landed.
  func deliver(
    _ read: FileSnapshot, of key: HashedPath, to subscribers: [FileSubscribers.Deliver],
    readAfter landed: UInt64
  ) {
    // Only once every subscriber has it may a write of theirs expect to replace it: the last
    // one says so as its holders have it, before a write of theirs can look.
    let handOver = HandOver { [self] in
      state.withLock { $0.files.delivered(read, of: key, readAfter: landed) }
    }
    for (index, subscriber) in subscribers.enumerated() {
      subscriber(
        FileChange(
          content: read.content, ownWritesLanded: landed,
          handOver: index == subscribers.count - 1 ? handOver : nil))
    }
    state.withLock { $0.hooks.afterDelivery[key] }?()
    handOver.run()
  }

  /// Whether new bytes in `path` are to be read again later: while the file changed less than
  /// the settle delay ago, within the maximum wait since `firstEvent`; and while a writer holds
  /// it open, within the writer wait, until the maximum wait has passed and the file has stayed
  /// unchanged for the settle delay (a writer that keeps the file open between complete
  /// writes, as a log does). What an open writer left may be half written, and a process
  /// descheduled between truncating and writing leaves the change time as old as the
  /// truncation, so within the maximum wait the open writer counts first.
  ///
  /// An `empty` file is most often a writer between truncating and writing (a `cp`, a shell's
  /// `>`, an editor saving in place), and this process's own renames around it can make its
  /// events say the writer is done: it is believed only once it has stayed empty for the
  /// maximum wait, and waited for up to the writer wait since it was emptied. (Not since the
  /// burst began: a check held up behind others finds that long past, though the writer may
  /// have truncated a moment ago.)
  private func postpone(
    _ path: String, beingWritten: Bool, empty: Bool, firstEvent: UInt64
  ) -> Bool {
    let wallClock = UInt64(Date().timeIntervalSince1970 * 1e9)
    let changedAgo = FileIdentity.of(path).map { $0.nanosecondsSinceChange(now: wallClock) }
    let uptime = DispatchTime.now().uptimeNanoseconds
    if empty {
      let quiet = !beingWritten && (changedAgo ?? 0) >= maxWait.nanoseconds
      return !quiet
        && settler.postpone(
          path, firstEvent: changedAgo.map { uptime - min($0, uptime) } ?? firstEvent,
          changedAgo: 0, limit: writerWait)
    }
    if beingWritten {
      let waited = uptime - min(firstEvent, uptime)
      let quiet = waited >= maxWait.nanoseconds && (changedAgo ?? 0) >= settleDelay.nanoseconds
      // Checked again once quiet for the settle delay, and not before the maximum wait.
      return !quiet
        && settler.postpone(
          path, firstEvent: firstEvent, changedAgo: changedAgo ?? 0, limit: writerWait,
          notBefore: firstEvent + maxWait.nanoseconds)
    }
    return changedAgo.map({ $0 < settleDelay.nanoseconds }) ?? true
      && settler.postpone(
        path, firstEvent: firstEvent, changedAgo: changedAgo ?? 0, limit: maxWait)
  }

  /// Runs `work` on the delivery queue once the watcher thread has handled every event the
  /// kernel queued before the call: the marker it waits for is queued behind them. (Not a
  /// wake-up: the thread may read an earlier one first, still ahead of those events, and serve
  /// every request with it.) Other files' checks go on meanwhile: a thread lagging under load
  /// holds up only the check that waits for it.
  func afterQueuedEvents(_ work: @escaping @Sendable () -> Void) {
    let id = state.withLock { state -> UInt64? in
      guard state.polling.fallback == nil else { return nil }
      return state.hooks.addMarker(work)
    }
    guard let id, let control = control.withLock({ $0 }) else { return work() }
    do {
      try control.queueMarker(id)
    } catch {
      // Without it the check goes on with what the thread has read so far.
      Self.logger.error("cannot queue a marker for the watcher thread: \(error)")
      state.withLock { $0.hooks.takeMarker(id) }?()
    }
  }

  /// Goes on with the work of every marker not read yet: events were lost (the markers among
  /// them, perhaps), and each watched file is now taken as being written.
  func releaseMarkers() {
    for work in state.withLock({ $0.hooks.takeAllMarkers() }) { delivery.async(execute: work) }
  }

  /// Marks the watched files in `folder` and in the folders under it as possibly changed: their
  /// watch went away with `folder`, so events may have been missed.
  func dirtyAll(within folder: String) {
    for path in state.withLock({ $0.folders.files(within: folder) }) { settler.dirty(path.string) }
  }

  /// Marks the watched files of `directory` as possibly changed (its watch was just added).
  func dirtyAll(under directory: String) {
    let paths = state.withLock { $0.folders.files(in: HashedPath(directory)) }
    for path in paths { settler.dirty(path.string) }
  }

  /// Marks every watched file as possibly changed after events were lost (an overflow, a
  /// rebuild). Whether a process is writing one in place is unknown then, so each is taken as
  /// being written: new bytes wait for the file's next close or rename, or the maximum wait,
  /// rather than being delivered as a writer may have left them for a moment (truncated).
  func eventsLost() {
    for path in state.withLock({ $0.files.assumeAllBeingWritten() }) { settler.dirty(path.string) }
    releaseMarkers()
  }
}
