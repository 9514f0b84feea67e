import CInotifyTools
import Glibc
import TetherFiles

/// Making the kernel's watches match the folders of the watched files: the watcher thread's
/// syncs, and the folders and ancestors they watch, drop and release.
extension WatcherThread {
  /// Makes the inotify watches match the directories of the watched files; `false` when polling
  /// had to take over.
  ///
  /// A wake-up (`full == false`) looks only at the directories added since the last sync, unless
  /// one went away: adding cannot make a watch unwanted, and every directory watched or waited
  /// for before is served as it was. Events that move folders (a drop, an awaited folder
  /// appearing) and rebuilds look at them all.
  func sync(full: Bool = true) -> Bool {
    let (plan, generation) = watcher.planSync(full: full) { watches[$0] != nil }
    let (wanted, onlyAdded) = (plan.wanted, plan.onlyAdded)
    var targets: [String: Set<String>] = [:]
    for directory in wanted {
      // A watched folder stands until its removal's event says otherwise (and rebuilds): only
      // new folders are looked for, or each new folder would stat every folder (5,050 stats
      // for 100 folders).
      let target = watches[directory] != nil ? directory : Self.nearestExisting(directory)
      targets[target, default: []].insert(directory)
    }
    let unwanted = onlyAdded ? [:] : watches.filter { targets[$0.key] == nil }
    if !unwanted.isEmpty {
      let live = Inotify.liveWatches(descriptor: descriptor)
      // One still above a wanted folder keeps its watch, for its moves: removed and added
      // again, a move in between would go unseen.
      let above = Self.ancestors(of: targets.keys)
      for (path, wd) in unwanted
      where !(above.contains(path) && keepAsAncestor(path, wd, live: live)) {
        forget(wd, of: path, live: live)
      }
    }
    // Each round watches what the last one found: a folder made (or removed) between the look
    // and its ancestor's watch sends that watch no event, so it is looked for again.
    var firstRound = true
    while !targets.isEmpty {
      // Checked each round: a dropped folder can be found in a later one too (made again while
      // its ancestor's watch was added), and its stale descriptor gets no event.
      if targets.keys.contains(where: { watches[$0] == nil && dropped.contains($0) }) {
        return rebuild()
      }
      var again: [String: Set<String>] = [:]
      for (path, waiting) in targets {
        if watches[path] == nil {
          watch(path, for: waiting, lookAgain: &again)
        } else if !firstRound {
          // Found since under a watched folder: which will see its missing child made.
          for directory in waiting {
            watcher.unpoll(directory: directory)
            watcher.dirtyAll(under: directory)
          }
        }
      }
      targets = again
      firstRound = false
    }
    if !onlyAdded { releaseAncestors() }
    if ancestorNeedsRebuild { return rebuild() }
    let descriptor = descriptor
    watcher.finishSync(
      examined: plan.examined, generation: generation, threadWatch: { watches[$0] },
      isThreadWatch: { paths[$0] != nil || ancestorPaths[$0] != nil },
      threadWatchCount: watches.count + ancestorWatches.count,
      ancestorWatchCount: ancestorWatches.count,
      removeStray: { wd in
        do {
          try systemCall("inotify_rm_watch") { inotify_rm_watch(descriptor, wd) }
        } catch {
          // EINVAL: the kernel dropped it already (its folder went).
        }
      })
    return true
  }

  /// Watches `path` for the `waiting` directories (itself, or ones it is the nearest existing
  /// ancestor of), or polls them if it cannot; a directory that `path` turns out not to be the
  /// nearest existing ancestor of once watched goes into `again` under the one it has now.
  private func watch(
    _ path: String, for waiting: Set<String>, lookAgain again: inout [String: Set<String>]
  ) {
    if let remote = FileSystemKind.remoteName(of: path) {
      for directory in waiting {
        watcher.poll(directory: directory, because: .networkFileSystem(remote))
      }
      return
    }
    if !waiting.contains(path) { watcher.willWatchAncestor(path, for: waiting) }
    watchAncestors(of: path)
    let wd: Int32
    do {
      wd = try backend.watch(path, mask: Inotify.directoryMask, isDirectory: true)
    } catch  where error.code == ENOENT || error.code == ENOTDIR {
      // Removed since it was looked at: watched through what exists now.
      for directory in waiting {
        again[Self.nearestExisting(directory), default: []].insert(directory)
      }
      return
    } catch {
      for directory in waiting {
        watcher.poll(directory: directory, because: .from(error))
      }
      return
    }
    if ancestorPaths[wd] == path {
      // Watched for its moves until now: the watch, the same, now asks for everything.
      ancestorWatches[path] = nil
      ancestorPaths[wd] = nil
    }
    watches[path] = wd
    paths[wd] = path
    for directory in waiting {
      if directory != path {
        let nearest = Self.nearestExisting(directory)
        if nearest != path {
          again[nearest, default: []].insert(directory)
          continue
        }
      }
      watcher.unpoll(directory: directory)
      if !watcher.wasWatchedHere(HashedPath(directory), as: wd) {
        watcher.dirtyAll(under: directory)
      }
    }
  }

  /// Ends the watches of `path` and of every folder under it after `path` was deleted, moved or
  /// unmounted (a folder moved with an ancestor is watched where it went, and gets no event of
  /// its own): the files they served are checked, and watched again through what they need now
  /// (the nearest existing ancestor of a deleted folder). Only these watches change: starting
  /// the library afresh would re-read every watched file.
  func drop(_ path: String) -> Bool {
    let live = Inotify.liveWatches(descriptor: descriptor)
    let prefix = path.hasSuffix("/") ? path : path + "/"
    func isWithin(_ other: String) -> Bool { other == path || other.hasPrefix(prefix) }
    for (watched, wd) in watches where isWithin(watched) { forget(wd, of: watched, live: live) }
    for (ancestor, wd) in ancestorWatches where isWithin(ancestor) {
      forget(wd, of: ancestor, live: live)
    }
    watcher.dirtyAll(within: path)
    return sync()
  }

  /// Forgets the watch `wd` of `path` (a watched path's or an ancestor's), removing it if the
  /// kernel still holds it (a moved folder's watch follows the folder). Removing a dropped one
  /// (its events still queued) would make the library print a failure to stderr; it keeps a
  /// stale entry for the path either way.
  private func forget(_ wd: Int32, of path: String, live: Set<Int32>?) {
    watches[path] = nil
    paths[wd] = nil
    ancestorWatches[path] = nil
    ancestorPaths[wd] = nil
    if live?.contains(wd) ?? true, backend.removeWatch(wd) { return }
    if backend.keepsDroppedWatches { dropped.insert(path) }
  }

  /// Watches the ancestors of `path` that are not watched yet, for their moves. From the top
  /// down, and before `path` itself: an ancestor moved before its watch stood is seen by the
  /// watches added after it, which go by path.
  private func watchAncestors(of path: String) {
    var missing: [String] = []
    var ancestor = LexicalPath.parent(of: path)
    // Each watched path's ancestors are watched: the first one that is ends the climb.
    while ancestor != "/" && ancestor != "." && watches[ancestor] == nil
      && ancestorWatches[ancestor] == nil
    {
      missing.append(ancestor)
      ancestor = LexicalPath.parent(of: ancestor)
    }
    for ancestor in missing.reversed() {
      guard !dropped.contains(ancestor) else {
        ancestorNeedsRebuild = true
        continue
      }
      let wd: Int32
      do {
        // Added to what a watch of the same folder (a caller's) asks, never narrowing it.
        wd = try backend.watch(
          ancestor, mask: Inotify.ancestorMask | IN_MASK_ADD, isDirectory: true)
      } catch {
        // Gone since (the watches after it go by path and see that), or not to be watched (no
        // read permission, no watches left): its moves go unseen.
        FileWatcher.logger.debug("cannot follow the moves of \(ancestor): \(error)")
        continue
      }
      // The same folder as a watched path (through a link): its own watch serves.
      guard paths[wd] == nil else { continue }
      ancestorWatches[ancestor] = wd
      ancestorPaths[wd] = ancestor
    }
  }

  /// Keeps the watch `wd` of `path`, no longer a watched path, as an ancestor's (narrowed to
  /// its moves); `false` when the folder cannot be watched now. A folder at `path` that is
  /// another one now keeps its new watch, and the old one goes.
  private func keepAsAncestor(_ path: String, _ wd: Int32, live: Set<Int32>?) -> Bool {
    let now: Int32
    do {
      now = try backend.watch(path, mask: Inotify.ancestorMask, isDirectory: true)
    } catch {
      return false
    }
    if now != wd { forget(wd, of: path, live: live) }
    watches[path] = nil
    paths[wd] = nil
    ancestorWatches[path] = now
    ancestorPaths[now] = path
    return true
  }

  /// Removes the watches of ancestors no watched path is under any more.
  private func releaseAncestors() {
    let needed = Self.ancestors(of: watches.keys)
    let unneeded = ancestorWatches.filter { !needed.contains($0.key) }
    guard !unneeded.isEmpty else { return }
    let live = Inotify.liveWatches(descriptor: descriptor)
    for (path, wd) in unneeded { forget(wd, of: path, live: live) }
  }

  /// Every ancestor of `paths` but `/`.
  private static func ancestors(of paths: some Sequence<String>) -> Set<String> {
    var all: Set<String> = []
    for path in paths {
      var ancestor = LexicalPath.parent(of: path)
      // A path's ancestors from the first one met again are in already.
      while ancestor != "/" && ancestor != "." && all.insert(ancestor).inserted {
        ancestor = LexicalPath.parent(of: ancestor)
      }
    }
    return all
  }

  /// `directory` if it exists, else its nearest existing ancestor.
  private static func nearestExisting(_ directory: String) -> String {
    var path = directory
    var info = stat()
    while path != "/" && !(stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR) {
      path = LexicalPath.parent(of: path)
    }
    return path
  }
}
