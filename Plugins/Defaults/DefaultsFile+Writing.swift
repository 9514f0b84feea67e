import Foundation
import Glibc
import Tether
import TetherFiles
import TetherWatcher

/// Writing: the locked read-merge-replace that every entry point (a holder's change, `tether
/// set`) goes through.
extension DefaultsFile {
  /// Applies `changes` to the file under its lock; runs on the writer's queue.
  ///
  /// The holders' values are encoded here rather than on their threads: a value that has no
  /// literal is dropped from the write, and its error (naming the key and the file) told to its
  /// key's holders, while the other keys are written.
  ///
  /// The merge, the replacement and the record of what the file now holds happen under `view`
  /// (which deliveries and loads take too), so no read of the file from before this write is
  /// applied after it; the holders of other keys whose lines the file changed are told once
  /// the cross-process lock is let go.
  static func write(
    _ changes: Changes, to path: String, state: LockedState<State>, view: NSRecursiveLock
  ) -> ThrottledWriter<Changes>.Outcome {
    let pending = changes.byName
    var literals: [String: INIValue?] = [:]
    var rejected: [String: any Error] = [:]
    for (name, change) in pending {
      do {
        literals[name] = try change.value.encoded()
      } catch {
        rejected[name] = error
      }
    }
    let lock: LockFile
    do {
      lock = try lockFile(for: path)
    } catch {
      return .failed(error)
    }
    view.lock()
    defer { view.unlock() }
    let (watch, edits, unchanged, known) = state.withLock { state in
      var edits: [String: Change] = [:]
      var unchanged: Set<String> = []
      for (name, change) in pending {
        let base = state.literal(of: change.base, for: name)
        let literal = literals[name]
        // What a change made on top of this one finds as its base: this one's value, or for
        // a value that has no literal, and so never reaches the file, this one's base.
        state.taken[name] = (change.serial, literal ?? base)
        guard let literal else { continue }
        // The value its base has: written already, by the write that made it the base (a
        // holder's `save()` after its `withLock`), or read from the file. Written again it
        // could only be refused, if another process changed the line since, and its caller
        // told "dropped" of a value that was written; that change reaches the holders as news.
        if literal == base {
          unchanged.insert(name)
        } else {
          edits[name] = Change(literal: literal, base: .some(base))
        }
      }
      return (state.watches.first, edits, unchanged, state.merged)
    }
    let applied: Applied
    do {
      applied = try apply(edits, to: path, watch: watch, known: known)
    } catch {
      return .failed(error)
    }
    let identity = FileIdentity.of(path)
    let landed = watch?.ownWritesLanded
    // The file as written holds what other processes and editors wrote to other keys (and to
    // keys whose edit won over this process's change): their holders are told now, since the
    // watcher takes this write as this process's own and delivers nothing.
    let news = state.withLock { state in
      state.user = .success(applied.document)
      state.userIdentity = identity
      state.merged = applied.merged
      if let landed { state.ownWritesLanded = landed }
      // A key whose holders' last change is now in the file has it as its base from there
      // on; one whose change was dropped takes the file's.
      for (name, change) in pending
      where state.given[name]?.serial == change.serial
        && (applied.written.contains(name) || unchanged.contains(name) || rejected[name] != nil)
      {
        state.given[name]?.serial = nil
      }
      for name in applied.conflicts { state.given[name]?.serial = nil }
      return Self.news(in: &state, except: applied.written)
    }
    _ = consume lock  // Let go before telling holders: one may write the file.
    for name in applied.conflicts.sorted() {
      conflicts.warn(
        name, "\(path): \(name) changed on disk before this process wrote it; the file's value wins"
      )
    }
    deliver(news, state: state, path: path)
    var dropped = rejected
    for name in applied.conflicts {
      dropped[name] = TetherError.conflict(key: name, location: path)
    }
    return dropped.isEmpty ? .written : .partlyWritten(dropped: dropped)
  }

  /// The line of `name` in the defaults file at `path` (`nil`: no line), for `tether get`.
  static func entry(_ name: String, in path: String) throws -> Stored? {
    let parsed = try read(path).get()
    if let problem = parsed.problem(for: name) { throw problem }
    return parsed.entries[name]
  }

  /// Sets (or, with `nil`, removes) one line of the defaults file at `path` now, under its lock:
  /// what `tether set` does, through the library's own write path.
  static func set(_ name: String, literal: INIValue?, in path: String) throws {
    let lock = try lockFile(for: path)
    try apply([name: Change(literal: literal, base: .none)], to: path, watch: nil, known: nil)
    _ = consume lock
  }

  /// Takes the lock of the file at `path` (see `LockFile`), its refusal said as a
  /// `TetherError`; the lock is let go when the value goes.
  static func lockFile(for path: String) throws -> LockFile {
    do {
      return try LockFile(beside: path)
    } catch let refused as LockFile.Refused {
      throw TetherError.unusableFile(refused.path, reason: refused.reason)
    }
  }

  /// How long a write goes on trying while the file keeps changing under it.
  private static let retryTime = Duration.seconds(2)

  /// What a write did: the document the file now holds, the keys whose change it holds, and
  /// those whose change it dropped because their line changed on disk first.
  struct Applied {
    let document: Parsed
    let written: Set<String>
    let conflicts: [String]
    /// What the file holds now, when its version is known: the next write's merge.
    let merged: Merged?
  }

  /// What a write found in the file and merged into, or left there, with its version and
  /// parse: while the file's version stays the same, the next write merges into it without
  /// reading and parsing the file again.
  struct Merged {
    let snapshot: FileSnapshot
    let parsed: Parsed
  }

  /// The read-merge-replace, with the file's lock held. A key whose line no longer holds its
  /// change's base was changed by someone else first, and keeps that edit.
  ///
  /// `known` is what the last write left, taken instead of a read of the file when the file's
  /// version is still its version. An edit that version cannot show (in place, within one tick
  /// of the file system's clock, the size unchanged) is still found: the replacement checks
  /// the file's bytes against it and throws a conflict, and the retry reads the file.
  @discardableResult
  private static func apply(
    _ changes: [String: Change], to path: String, watch: FileWatch?, known: Merged?
  ) throws -> Applied {
    // An editor does not take the lock: retry when it changed the file under us, for a time
    // rather than a count. A write is open to an editor from its read to its rename, fsync
    // included, and under I/O load one fsync can outlast the pause between an editor's saves,
    // so that a few attempts in a row can all lose to one editor saving every 10 ms.
    let deadline = ContinuousClock.now + retryTime
    var known = known
    repeat {
      let found: FileSnapshot
      let onDisk: Parsed
      let reused = known.flatMap { known in
        known.snapshot.version != nil && FileVersion.of(path) == known.snapshot.version
          ? known : nil
      }
      known = nil
      if let reused {
        (found, onDisk) = (reused.snapshot, reused.parsed)
      } else {
        found = FileSnapshot.read(path)
        onDisk = try parse(found.content, origin: path).get()
      }
      let current = found.content
      let edited = changes.compactMap { name, change in
        change.base.map { $0 != onDisk.entries[name]?.value } == true ? name : nil
      }
      var document = onDisk.document
      document.apply(
        changes.filter { !edited.contains($0.key) }.map { name, change in
          let (section, key) = DefaultsName.split(name)
          return (section, key, change.literal)
        })
      let data = Data(document.render().utf8)
      let written = Set(changes.keys).subtracting(edited)
      let parsed = Parsed(document)
      if current == .data(data)
        || (current == .missing && changes.allSatisfy { $0.value.literal == nil })
      {
        // Nothing to write is said only of bytes just read: no replacement checks them.
        if reused != nil { continue }
        return Applied(
          document: parsed, written: written, conflicts: edited,
          merged: found.version.map { _ in Merged(snapshot: found, parsed: onDisk) })
      }
      var version: FileVersion?
      do {
        try watch.replacing(with: data) { _ in
          let made = try AtomicFile.write(data, to: path, durable: false, expected: found)
          version = made
          return made
        }
      } catch is AtomicFile.Conflict {
        continue
      }
      return Applied(
        document: parsed, written: written, conflicts: edited,
        merged: Merged(snapshot: FileSnapshot(.data(data), version: version), parsed: parsed))
    } while ContinuousClock.now < deadline
    throw TetherError.invalidConfiguration(
      message: "the file kept changing while it was being written", location: path)
  }
}
