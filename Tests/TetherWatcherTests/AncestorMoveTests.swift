import Foundation
import Testing
import TetherFiles
import TetherTesting
import TetherWatcher

/// A folder moved away with an ancestor keeps its watch (the watch follows the folder) and
/// gets no event of its own: the ancestor's move is what tells the watcher to look for the
/// file's folder again, where a new one is made.
@Suite(.timeLimit(.minutes(2))) struct AncestorMoveTests {
  /// The file is `data/deep/er/a.json`: `data/deep` is its folder's parent (the file's
  /// grandparent), `data` one further up.
  @Test(arguments: ["data/deep", "data"])
  func aFileIsFollowedIntoAFolderMadeAgainAfterAnAncestorMovedAway(moved: String) async throws {
    try await withTemporaryDirectory { root in
      let folder = root.appending(path: "data/deep/er")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let file = folder.appending(path: "a.json")
      try Data("1".utf8).write(to: file)
      let deliveries = Deliveries()
      let watch = FileWatcher.shared.watch(file.path) { deliveries.record($0) }
      // Every watch stands, the ancestors' included.
      FileWatcher.shared.waitForThread()
      try FileManager.default.moveItem(
        at: root.appending(path: moved), to: root.appending(path: moved + "2"))
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      // Written in place, as `echo 5 > a.json` writes.
      try Data("5".utf8).write(to: file)
      await expectEventually(timeout: .seconds(10)) { deliveries.lastIs("5") }
      try Data("6".utf8).write(to: file)
      await expectEventually(timeout: .seconds(10)) { deliveries.lastIs("6") }
      withExtendedLifetime(watch) {}
    }
  }
}

/// The ancestor watches a watcher holds for folders in `folder` (and no watched folder above
/// it): `folder` and each folder above it but `/`, which cannot move.
func ancestorWatches(forFoldersIn folder: URL) -> Int {
  folder.standardizedFileURL.pathComponents.count - 1
}
