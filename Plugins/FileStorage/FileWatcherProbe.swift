import TetherFiles
import TetherWatcher

/// What the one file watcher behind every file and defaults key is doing, for benchmarks and
/// diagnostics.
///
/// ```swift
/// @_spi(Benchmarking) import TetherFileStorage
/// print(FileWatcherProbe.inotifyWatches)  // one per watched folder, plus the control file
/// ```
@_spi(Benchmarking)
public enum FileWatcherProbe {
  /// inotify watches held: one per watched folder, plus the watcher's control file.
  public static var inotifyWatches: Int { FileWatcher.shared.statistics.inotifyWatches }

  /// How long a file must stay quiet before its change is delivered.
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
