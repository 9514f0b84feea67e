import TetherFiles
import TetherWatcher

/// What the one file watcher behind every file and defaults key is doing, for benchmarks and
/// diagnostics.
///
/// ```swift
/// @_spi(Benchmarking) import TetherFileStorage
/// print(FileWatcherProbe.inotifyWatches)  // watched folders, their ancestors, the control file
/// ```
@_spi(Benchmarking)
public enum FileWatcherProbe {
  /// inotify watches held: one per watched folder, one per ancestor of those (followed only for
  /// its moving or going), plus the watcher's control file.
  public static var inotifyWatches: Int { FileWatcher.shared.statistics.inotifyWatches }

  /// ``inotifyWatches`` and, of them, those of the watched folders' ancestors (up to `/`, which
  /// is not watched: it cannot move): a few per tree, however many folders are under it. Read
  /// together, so that the two agree.
  public static var watchCounts: (all: Int, ancestors: Int) {
    let statistics = FileWatcher.shared.statistics
    return (statistics.inotifyWatches, statistics.ancestorWatches)
  }

  /// Waits until the watcher's thread has taken up every file watched so far: the ancestors'
  /// watches are its to add, after the callers' own.
  public static func waitForWatcher() {
    FileWatcher.shared.waitForThread()
  }

  /// How long a file must stay quiet before its change is delivered, unless an event ends a
  /// write of it (a close after writing, a rename into place).
  public static var settleDelay: Duration { FileWatcher.shared.settleDelay }

  /// Calls `tap` on the watcher thread with the path of each raw inotify event for a watched
  /// file, before settling; `nil` removes it.
  public static func setEventTap(_ tap: (@Sendable (String) -> Void)?) {
    FileWatcher.shared.setEventTap(tap)
  }
}

extension FileStorageKey {
  /// Files written for this key in this process: each is one atomic replace of the file.
  @_spi(Benchmarking) public var writeCount: Int { writes }
}
