package import TetherFiles

/// The folders of the watched files, each watched once however many of its files are: which
/// the watcher thread must watch, which it has yet to look at, and which stay watched a while
/// after their last file went. Pure state: the watcher guards it with its lock.
package struct WatchedFolders {
  /// Nothing watched, requested or polled yet.
  package init() {}

  private struct Folder {
    /// The watched paths in it.
    var files: Set<HashedPath>
    /// The request generation that first asked for it.
    let requestedAt: UInt64
  }

  /// What the watcher thread is to do in one sync.
  package struct SyncPlan {
    /// The folders that must be watched (by their own watch or an ancestor's).
    package let wanted: Set<String>
    /// Whether only folders added since the last sync were looked at: no watch became unwanted.
    package let onlyAdded: Bool
    /// The folders looked at.
    package let examined: [HashedPath]
  }

  private var folders: [HashedPath: Folder] = [:]
  /// Folders added since the thread last made its watches match: adding is most of what it is
  /// asked, and looking at these alone keeps a start with a folder per key linear.
  private var added: Set<HashedPath> = []
  /// Set when a folder went away: which watches then stand needs every folder.
  private var fullSyncNeeded = false
  /// Folders with no watched file left whose watch stands a while longer, by when they became
  /// idle (uptime nanoseconds); a file joining one is watched at once.
  private var idle: [HashedPath: UInt64] = [:]
  /// Whether a release of idle folders is due.
  private var releaseScheduled = false

  /// The generation that asked for `directory`'s watch, if a watched file is (or was lately) in
  /// it; read in place, without copying the folder's files.
  package func requestedAt(_ directory: HashedPath) -> UInt64? {
    folders.index(forKey: directory).map { folders.values[$0].requestedAt }
  }

  /// The watched files in `directory`.
  package func files(in directory: HashedPath) -> Set<HashedPath> {
    folders[directory]?.files ?? []
  }

  /// The watched files in `folder` and in the folders under it.
  package func files(within folder: String) -> [HashedPath] {
    let prefix = folder.hasSuffix("/") ? folder : folder + "/"
    return folders.filter { $0.key.string == folder || $0.key.string.hasPrefix(prefix) }
      .values.flatMap(\.files)
  }

  /// The folders not looked at since they were added that are `path` or under it: what a
  /// folder appearing at `path` may be.
  package func awaited(at path: String) -> [String] {
    let prefix = path + "/"
    return folders.keys.filter {
      ($0.string == path || $0.string.hasPrefix(prefix)) && !added.contains($0)
    }.map(\.string)
  }

  /// Adds `file` to `directory`; returns the generation that asked for the folder's watch,
  /// `request()`'s for a folder new here.
  package mutating func add(
    _ file: HashedPath, to directory: HashedPath, request: () -> UInt64
  ) -> UInt64 {
    if let index = folders.index(forKey: directory) {
      folders.values[index].files.insert(file)
      if !idle.isEmpty { idle[directory] = nil }
      return folders.values[index].requestedAt
    }
    let generation = request()
    folders[directory] = Folder(files: [file], requestedAt: generation)
    added.insert(directory)
    return generation
  }

  /// What became of a folder whose file went.
  package enum Removal {
    /// Files are left in it.
    case kept
    /// Its last file went and its watch lingers: a release is to be scheduled.
    case idle
    /// Its last file went and its watch lingers, with a release scheduled already.
    case idleAlreadyScheduled
    /// Its last file went, and so did it: the thread must sync.
    case removed
  }

  /// Removes `file` from `directory`. A folder left empty lingers idle from `now` when
  /// `linger`, and goes at once otherwise (a polled folder has no watch to keep).
  package mutating func remove(
    _ file: HashedPath, from directory: HashedPath, linger: Bool, now: UInt64
  ) -> Removal {
    guard let index = folders.index(forKey: directory) else { return .kept }
    folders.values[index].files.remove(file)
    guard folders.values[index].files.isEmpty else { return .kept }
    if linger {
      idle[directory] = now
      defer { releaseScheduled = true }
      return releaseScheduled ? .idleAlreadyScheduled : .idle
    }
    folders.remove(at: index)
    fullSyncNeeded = true
    return .removed
  }

  /// Releases the folders idle for `linger` by `now`; returns whether any went (the thread must
  /// then sync), and in how long the next idle one is due (`nil`: none is left).
  package mutating func releaseIdle(now: UInt64, linger: UInt64) -> (released: Bool, next: UInt64?)
  {
    var released = false
    for (directory, since) in idle where now >= since + linger {
      idle[directory] = nil
      // Still without a file (a joining file takes it out of the idle ones).
      if folders[directory]?.files.isEmpty == true {
        folders[directory] = nil
        released = true
      }
    }
    if released { fullSyncNeeded = true }
    guard let oldest = idle.values.min() else {
      releaseScheduled = false
      return (released, nil)
    }
    let due = oldest + linger
    return (released, due > now ? due - now : 0)
  }

  /// Plans a sync of the thread's watches: with `full` (or when a folder went), every folder,
  /// else only those added since the last one.
  ///
  /// - Parameters:
  ///   - isPolled: whether a file is polled instead (its folder needs no watch for it).
  ///   - watchedHere: whether a caller added the folder's watch itself.
  ///   - threadWatches: whether the thread holds a watch of that path of its own.
  package mutating func planSync(
    full: Bool, isPolled: (HashedPath) -> Bool, watchedHere: (HashedPath) -> Bool,
    threadWatches: (String) -> Bool
  ) -> SyncPlan {
    let onlyAdded = !full && !fullSyncNeeded
    let candidates = onlyAdded ? Array(added) : Array(folders.keys)
    added = []
    fullSyncNeeded = false
    var wanted = candidates.filter { directory in
      folders[directory]?.files.contains { !isPolled($0) } ?? false
        // Idle already, its watch added by a caller: it stands for the idle while, as one the
        // thread added would.
        || (watchedHere(directory) && idle[directory] != nil)
    }
    if !onlyAdded {
      // An idle folder keeps a watch of its own until it is released; one waited for through an
      // ancestor (or whose watch went) is released now: nothing needs it.
      for directory in idle.keys {
        if threadWatches(directory.string) {
          wanted.append(directory)
        } else {
          idle[directory] = nil
          folders[directory] = nil
        }
      }
    }
    return SyncPlan(
      wanted: Set(wanted.map(\.string)), onlyAdded: onlyAdded, examined: candidates)
  }
}
