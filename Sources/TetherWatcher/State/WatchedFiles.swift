package import Foundation
package import TetherFiles

/// The watched files: who is told of each one's changes, and what this process knows it holds.
///
/// A file's entry is the one answer to "what is on disk" for this process: the content last seen
/// or written by it, the writes it has announced and not yet seen land, and whether another
/// process seems to be writing it in place. Pure state: the watcher guards it with its lock.
package struct WatchedFiles {
  /// Nothing watched, requested or polled yet.
  package init() {}

  package struct Entry {
    package let directory: HashedPath
    package var subscribers: FileSubscribers
    /// What the file holds, as last read or written by this process, and in which version: the
    /// same bytes in another version are the file rewritten, a change (see
    /// ``take(_:of:confirmed:readAfter:)``).
    package var known: FileSnapshot
    /// What the subscribers have been given: the baseline, this process's own writes, and each
    /// change once it was delivered. A write expects to replace this, not `known`: content the
    /// watcher has read and is still delivering was never seen by the writer's holders, and
    /// replacing it would drop someone's edit unseen.
    package var handedOver: FileSnapshot
    package var ownWrites: [Data] = []
    /// Removals of the file this process has announced and not finished: the file found
    /// missing meanwhile is this process's own change.
    package var ownRemovals = 0
    /// Whether a process wrote the file in place and has not closed it yet (its last event was
    /// a create or a modification, not a close after writing, a rename or a removal): what it
    /// holds may be half written, such as truncated and not yet filled again.
    package var beingWritten = false
    /// Events read for the file since `known` was taken: an empty file that none accounts for
    /// is being truncated (see ``take(_:of:confirmed:)``).
    package var eventsSinceKnown = 0
    /// How many of this process's writes of the file have landed: a read from before the last
    /// of them may hold what that write replaced.
    package var ownWritesLanded: UInt64 = 0
    /// Events read for the file since it was watched: two reading points with the same count
    /// have no event of the file between them.
    package var events: UInt64 = 0
    /// How many times events were lost since the file was watched (overflows, rebuilds): the
    /// file's among them, perhaps.
    package var losses: UInt64 = 0
  }

  /// Where a file stands as a check reads it: a check at the end of a write delivers what it
  /// read only if the file stands there still once every event queued before the read is taken
  /// up (see ``readingPoint(_:)``).
  package struct ReadingPoint: Equatable, Sendable {
    /// This process's writes of the file landed (see ``ownWritesLanded(_:)``).
    package let ownWritesLanded: UInt64
    /// Events read for the file (see ``Entry/events``).
    package let events: UInt64
    /// Whether a writer seemed to hold the file open (see ``Entry/beingWritten``).
    package let beingWritten: Bool
    /// Times events were lost (see ``Entry/losses``).
    package let losses: UInt64

    /// Whether nothing but lost events (which take the file as being written) came between
    /// `earlier` and this point: no event read for the file, no own write landed.
    package func movedOnlyByLosses(since earlier: ReadingPoint) -> Bool {
      ownWritesLanded == earlier.ownWritesLanded && events == earlier.events
        && losses != earlier.losses
    }
  }

  /// What a check of a file's content comes to.
  package enum Outcome {
    case unchanged
    /// New bytes, not yet taken as known: the caller first asks how recently the file changed,
    /// unless a writer still has it open.
    case unconfirmed(beingWritten: Bool)
    case deliver([FileSubscribers.Deliver])
    /// The content was read before one of this process's writes landed: read it again.
    case stale
  }

  private var entries: [HashedPath: Entry] = [:]

  /// How many files have a subscriber.
  package var count: Int { entries.count }

  /// Every watched path.
  package var paths: [HashedPath] { Array(entries.keys) }

  package func contains(_ key: HashedPath) -> Bool { entries[key] != nil }

  /// Adds subscriber `id` of `key`; a file not watched yet starts from `baseline()`.
  package mutating func subscribe(
    _ key: HashedPath, in directory: HashedPath, id: UInt64,
    deliver: @escaping FileSubscribers.Deliver, baseline: () -> FileSnapshot
  ) {
    if let index = entries.index(forKey: key) {
      entries.values[index].subscribers.append(id: id, deliver: deliver)
    } else {
      let content = baseline()
      entries[key] = Entry(
        directory: directory, subscribers: FileSubscribers(id: id, deliver: deliver),
        known: content, handedOver: content)
    }
  }

  /// Removes subscriber `id` of `key`; returns the file's folder when that was its last.
  package mutating func unsubscribe(_ key: HashedPath, id: UInt64) -> HashedPath? {
    guard let index = entries.index(forKey: key) else { return nil }
    entries.values[index].subscribers.remove(id: id)
    guard entries.values[index].subscribers.isEmpty else { return nil }
    return entries.remove(at: index).value.directory
  }

  /// The content last handed to the subscribers (see ``Entry/handedOver``): what a write of
  /// theirs expects to replace.
  package func handedOver(_ key: HashedPath) -> FileSnapshot? { entries[key]?.handedOver }

  /// `read`, taken when `landed` of this process's writes had landed, has been delivered to
  /// every subscriber; a write that landed since replaced it, and stays what they were given.
  package mutating func delivered(
    _ read: FileSnapshot, of key: HashedPath, readAfter landed: UInt64
  ) {
    guard let index = entries.index(forKey: key), entries.values[index].ownWritesLanded == landed
    else { return }
    entries.values[index].handedOver = read
  }

  /// Where `key`'s own writes stand: take it before reading the file, for
  /// ``take(_:of:confirmed:readAfter:)``.
  package func ownWritesLanded(_ key: HashedPath) -> UInt64? { entries[key]?.ownWritesLanded }

  /// Where `key` stands now; `nil` when it is not watched. Taken before a read and again once
  /// the events queued before it are taken up: equal, no event of the file came between, and
  /// no write of this process landed.
  package func readingPoint(_ key: HashedPath) -> ReadingPoint? {
    entries[key].map {
      ReadingPoint(
        ownWritesLanded: $0.ownWritesLanded, events: $0.events, beingWritten: $0.beingWritten,
        losses: $0.losses)
    }
  }

  /// `data` is about to replace the file: content equal to it is this process's own.
  package mutating func expectOwnWrite(_ key: HashedPath, data: Data) {
    entries[key]?.ownWrites.append(data)
  }

  /// The file now holds `data`, written by this process as `version`.
  package mutating func recordOwnWrite(_ key: HashedPath, data: Data, version: FileVersion) {
    guard let index = entries.index(forKey: key) else { return }
    landOwnChange(FileSnapshot(.data(data), version: version), at: index)
    if let own = entries.values[index].ownWrites.firstIndex(of: data) {
      entries.values[index].ownWrites.remove(at: own)
    }
  }

  /// The announced write of `data` did not happen.
  package mutating func cancelOwnWrite(_ key: HashedPath, data: Data) {
    if let index = entries[key]?.ownWrites.firstIndex(of: data) {
      entries[key]?.ownWrites.remove(at: index)
    }
  }

  /// The file is about to be removed by this process (a reset): finding it missing is this
  /// process's own change, which its holders already show.
  package mutating func expectOwnRemoval(_ key: HashedPath) {
    entries[key]?.ownRemovals += 1
  }

  /// The file is gone, removed by this process (or found already gone by its removal).
  package mutating func recordOwnRemoval(_ key: HashedPath) {
    guard let index = entries.index(forKey: key) else { return }
    landOwnChange(FileSnapshot(.missing), at: index)
    entries.values[index].ownRemovals = max(0, entries.values[index].ownRemovals - 1)
  }

  /// The announced removal did not happen.
  package mutating func cancelOwnRemoval(_ key: HashedPath) {
    guard let index = entries.index(forKey: key) else { return }
    entries.values[index].ownRemovals = max(0, entries.values[index].ownRemovals - 1)
  }

  /// Takes `content`, put there by this process, as what the file holds and what its
  /// subscribers were given; a read from before it is stale from now on.
  private mutating func landOwnChange(
    _ content: FileSnapshot, at index: Dictionary<HashedPath, Entry>.Index
  ) {
    entries.values[index].known = content
    entries.values[index].handedOver = content
    entries.values[index].eventsSinceKnown = 0
    entries.values[index].ownWritesLanded += 1
  }

  /// Notes an event of `key` (with whether its writer still has it open, when the event says);
  /// returns whether the file is watched.
  package mutating func noteEvent(_ key: HashedPath, writerStillOpen: Bool?) -> Bool {
    guard let index = entries.index(forKey: key) else { return false }
    entries.values[index].eventsSinceKnown += 1
    entries.values[index].events += 1
    if let writerStillOpen { entries.values[index].beingWritten = writerStillOpen }
    return true
  }

  /// Takes every file as being written, after events were lost (counted as a loss of each);
  /// returns their paths.
  package mutating func assumeAllBeingWritten() -> [HashedPath] {
    for index in entries.indices {
      entries.values[index].beingWritten = true
      entries.values[index].losses += 1
    }
    return Array(entries.keys)
  }

  /// Takes `read` as what `key` holds, and says whom to tell; new bytes only once `confirmed`.
  /// This process's own writes are taken without telling anyone. Content read before an own
  /// write landed (`readAfter`, from ``ownWritesLanded(_:)`` before the read) is `stale`: it may
  /// be what that write replaced, which no one is to be told of.
  ///
  /// The bytes the file held, in a new version, are new too: someone saved them again (an
  /// editor writing the file as it was), and that save is as much an edit as any, winning over a
  /// local change still waiting to be written. A version read for bytes known without one is
  /// learned, and not a change.
  package mutating func take(
    _ read: FileSnapshot, of key: HashedPath, confirmed: Bool, readAfter landed: UInt64? = nil
  ) -> Outcome {
    guard var entry = entries[key] else { return .unchanged }
    if entry.known.isSame(as: read) {
      if entry.known.version == nil, landed == nil || entry.ownWritesLanded == landed {
        learnVersion(read, of: key)
      }
      return .unchanged
    }
    if let landed, entry.ownWritesLanded != landed { return .stale }
    let ownWrite: Bool
    if case .data(let data) = read.content {
      ownWrite = entry.ownWrites.contains(data)
      // `open(O_TRUNC)` empties a file before it updates the file's times and queues its
      // event: an empty file no event accounts for yet is being truncated.
      let truncating = data.isEmpty && entry.eventsSinceKnown == 0
      if !ownWrite && !confirmed {
        return .unconfirmed(beingWritten: entry.beingWritten || truncating)
      }
    } else {
      ownWrite = read.content == .missing && entry.ownRemovals > 0
    }
    entry.known = read
    entry.eventsSinceKnown = 0
    // This process's own write is what its holders gave: nothing to deliver first.
    if ownWrite { entry.handedOver = read }
    entries[key] = entry
    return ownWrite ? .unchanged : .deliver(entry.subscribers.deliveries)
  }

  /// Takes the version of `read` for what is known of `key` without one, and for what its
  /// subscribers were given when that is the same bytes.
  private mutating func learnVersion(_ read: FileSnapshot, of key: HashedPath) {
    guard let index = entries.index(forKey: key) else { return }
    entries.values[index].known.version = read.version
    if entries.values[index].handedOver.content == read.content,
      entries.values[index].handedOver.version == nil
    {
      entries.values[index].handedOver.version = read.version
    }
  }
}
