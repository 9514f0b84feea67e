import Foundation
import Testing
import TetherFiles
import TetherTesting
import TetherWatcher

/// Exact counts of what a watcher does, each on a watcher of its own in this process (see
/// `FileWatcher.makeForTesting()`): nothing else watches through it.
@Suite(.timeLimit(.minutes(2))) struct WatchCountTests {
  /// Runs `body` with a watcher of its own, stopped afterwards.
  func withWatcher(_ body: (FileWatcher) async throws -> Void) async rethrows {
    let watcher = FileWatcher.makeForTesting()
    defer { watcher.stopForTesting() }
    try await body(watcher)
  }

  /// Watches `files` files spread over `folders` folders of `root`; with `watchedRoot`, a file
  /// in `root` first, so each folder is made where the watcher sees it appear.
  func watch(
    _ files: Int, in folders: Int, of root: URL, watchedRoot: Bool = false,
    with watcher: FileWatcher
  ) throws -> [FileWatch] {
    var watches: [FileWatch] = []
    if watchedRoot {
      watches.append(watcher.watch(root.appending(path: "root.json").path) { _ in })
    }
    for index in 0..<files {
      let folder = root.appending(path: "folder\(index % folders)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      watches.append(watcher.watch(folder.appending(path: "file\(index).json").path) { _ in })
    }
    watcher.waitForThread()
    return watches
  }

  @Test func aThousandFilesInTenFoldersUseTenWatchesPlusTheControlFile() async throws {
    try await withTemporaryDirectory { root in
      try await withWatcher { watcher in
        let watches = try watch(1000, in: 10, of: root, with: watcher)
        let statistics = watcher.statistics
        // And the folders above them, followed for their moves.
        let ancestors = ancestorWatches(forFoldersIn: root)
        #expect(statistics.ancestorWatches == ancestors)
        #expect(statistics.inotifyWatches == 11 + ancestors)
        #expect(statistics.watchedFiles == 1000)
        #expect(statistics.polledPaths.isEmpty)
        #expect(
          watcher.kernelWatchCount == 11 + ancestors, "the kernel holds what the watcher counts")
        withExtendedLifetime(watches) {}
      }
    }
  }

  /// Each new folder's watch is added by looking at that folder alone: looking at every folder
  /// for each new one makes a start with a key per folder quadratic. With a watched root, each
  /// folder is made inside a watched one: it is looked at for its key's request, not again for
  /// its creation's event.
  @Test(arguments: [false, true])
  func aFolderPerFileIsWatchedLookingAtEachFolderOnce(_ watchedRoot: Bool) async throws {
    try await withTemporaryDirectory { root in
      try await withWatcher { watcher in
        let folders = 800
        let watches = try watch(
          folders, in: folders, of: root, watchedRoot: watchedRoot, with: watcher)
        let statistics = watcher.statistics
        // The root's own watch, with a watched root, and the control folder's; and the folders
        // above the watched ones, the root among them unless it is watched itself.
        let ancestors = ancestorWatches(forFoldersIn: root) - (watchedRoot ? 1 : 0)
        #expect(statistics.inotifyWatches == folders + (watchedRoot ? 2 : 1) + ancestors)
        // About 800 when each is looked at once; 320,400 when every folder is, each time.
        #expect(
          statistics.examinedDirectories >= folders
            && statistics.examinedDirectories <= folders + 10,
          "\(statistics.examinedDirectories) folders looked at")
        withExtendedLifetime(watches) {}
      }
    }
  }

  /// Released folders are unwatched in the kernel too, whatever their watch descriptor (the
  /// kernel lists them in hex: read as decimal, 10 to 15 would look dropped already).
  @Test func everyReleasedFolderIsUnwatchedInTheKernel() async throws {
    try await withTemporaryDirectory { root in
      try await withWatcher { watcher in
        let watches = try watch(20, in: 20, of: root, with: watcher)
        #expect(watcher.statistics.inotifyWatches == 21 + ancestorWatches(forFoldersIn: root))
        for watch in watches { watch.cancel() }
        // Released once they have lingered idle for a second.
        await expectEventually(timeout: .seconds(20)) {
          watcher.statistics.inotifyWatches == 1
        }
        watcher.waitForThread()
        #expect(watcher.kernelWatchCount == 1)
        #expect(watcher.statistics.rebuilds == 0)
      }
    }
  }
}
