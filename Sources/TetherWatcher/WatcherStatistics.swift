/// What the watcher is doing, for tests, benchmarks and `tether` diagnostics.
package struct WatcherStatistics: Sendable {
  /// inotify watches held: one per watched directory (or waited-for ancestor), one per ancestor
  /// of those followed for its moves (``ancestorWatches``), plus the control folder's. A folder
  /// whose last watched file went keeps its watch for ``FileWatcher/idleFolderLinger``.
  package var inotifyWatches = 0
  /// Of ``inotifyWatches``, those of the ancestors of watched directories (up to `/`), which
  /// only tell when one of them moves or goes: a folder moved with its ancestor gets no event of
  /// its own, and would go on being watched where it went.
  package var ancestorWatches = 0
  /// Files with at least one subscriber.
  package var watchedFiles = 0
  /// Paths checked by polling, and why.
  package var polledPaths: [String: PollReason] = [:]
  /// Set when inotify cannot serve this process at all.
  package var fallback: PollReason?
  /// Kernel queue overflows seen (each one rescans every file).
  package var overflows = 0
  /// Times the library was re-initialised after a watch was dropped.
  package var rebuilds = 0
  /// Directories the watcher thread has looked at to make its watches match them, summed over
  /// every time it did: it grows with the directories added, not with their square.
  package var examinedDirectories = 0
  /// The library's inotify descriptor, once found.
  package var descriptor: Int32?
}
