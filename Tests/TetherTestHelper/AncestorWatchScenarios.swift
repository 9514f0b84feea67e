import Foundation
import Synchronization
import TetherFiles
import TetherWatcher

// Folders that change between the watcher thread looking for a missing folder and its watch of
// the nearest existing ancestor: the watch sees nothing of what happened before it stood.
extension Helper {
  /// `ancestorChange(.madeBeforeAncestorWatch)`: watches `folder`/late/data.json; `folder`/late
  /// is made just before the thread watches `folder` for it. Reports whether a write and then a
  /// second write arrive.
  static func madeBeforeAncestorWatch(folder root: String) {
    let late = root + "/late"
    make(root)
    onceBeforeAncestorWatch { _, directories in
      guard directories.contains(late) else { return false }
      make(late)
      return true
    }
    reportTwoWrites(to: late + "/data.json")
  }

  /// `ancestorChange(.ancestorRemovedBeforeWatch)`: watches `folder`/mid/late/data.json;
  /// `folder`/mid is removed just before the thread watches it for `folder`/mid/late, then made
  /// again with `late` once the watch call returns. Reports whether two writes arrive, and
  /// whether anything is polled.
  static func ancestorRemovedBeforeWatch(folder root: String) {
    let (mid, late) = (root + "/mid", root + "/mid/late")
    make(mid)
    onceBeforeAncestorWatch { ancestor, _ in
      guard ancestor == mid else { return false }
      try! FileManager.default.removeItem(atPath: mid)
      return true
    }
    reportTwoWrites(to: late + "/data.json") { make(late) }
  }

  /// `ancestorChange(.droppedFolderFoundLater)`: watches `folder`/mid/gone/data.json and removes
  /// `folder`/mid, so the kernel drops gone's watch while the library keeps a stale entry for
  /// it. `folder`/mid is made again, and gone in it just before the thread watches mid for it:
  /// the thread finds gone in a later round of the same sync. Reports whether two writes arrive.
  static func droppedFolderFoundLater(folder root: String) {
    let (mid, gone) = (root + "/mid", root + "/mid/gone")
    make(gone)
    reportTwoWrites(to: gone + "/data.json") {
      // Paused, the thread reads the removal once both folders are gone (so it watches the
      // root), and each pause after it has read every event before it: the dropped watch's
      // IN_IGNORED is taken before the folders come back.
      FileWatcher.shared.pauseForTesting()
      try! FileManager.default.removeItem(atPath: mid)
      FileWatcher.shared.resumeForTesting()
      FileWatcher.shared.pauseForTesting()
      FileWatcher.shared.resumeForTesting()
      let remade = DispatchSemaphore(value: 0)
      onceBeforeAncestorWatch { ancestor, _ in
        guard ancestor == mid else { return false }
        make(gone)
        remade.signal()
        return true
      }
      make(mid)
      remade.wait()
    }
  }

  /// Runs `act` on the watcher thread before each ancestor watch until it returns `true`.
  private static func onceBeforeAncestorWatch(
    _ act: @escaping @Sendable (String, Set<String>) -> Bool
  ) {
    let done = Atomic(false)
    FileWatcher.shared.setAncestorWatchHookForTesting { ancestor, directories in
      guard !done.load(ordering: .acquiring), act(ancestor, directories) else { return }
      done.store(true, ordering: .releasing)
    }
  }

  /// Watches `file`, runs `prepare`, writes "1" and waits for it (a new watch's own check may
  /// find it), then writes "2", which only the folder's watch can report.
  private static func reportTwoWrites(to file: String, prepare: () -> Void = {}) {
    let (first, second) = (TextRecorder(awaiting: "1"), TextRecorder(awaiting: "2"))
    let watch = FileWatcher.shared.watch(file) { content in
      first.record(content)
      second.record(content)
    }
    prepare()
    write(file, "1")
    let delivered = first.waitAndCount().delivered
    write(file, "2")
    let deliveredAgain = second.waitAndCount().delivered == 1
    withExtendedLifetime(watch) {}
    report(FileWatcher.shared.statistics) {
      $0.delivered = delivered
      $0.deliveredAgain = deliveredAgain
    }
  }
}
