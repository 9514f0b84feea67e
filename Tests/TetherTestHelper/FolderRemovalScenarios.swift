import Foundation
import Synchronization
import TetherWatcher

// Watched folders deleted or moved away, and made again.
extension Helper {
  /// `rewatchDeletedFolder`: the last watch of `folder`/a is cancelled and the folder deleted
  /// before the watcher thread runs, so it removes a watch the kernel already dropped; then the
  /// folder is made again and watched, and an edit must arrive.
  static func rewatchDeletedFolder(folder root: String) {
    let folder = root + "/a"
    let file = folder + "/data.json"
    make(folder)
    write(file, "1")
    let first = FileWatcher.shared.watch(file) { _ in }
    FileWatcher.shared.pauseForTesting()
    first.cancel()
    try! FileManager.default.removeItem(atPath: folder)
    FileWatcher.shared.resumeForTesting()
    // The cancellation is served before this watch's request, in order.
    make(folder)
    write(file, "2")
    let delivered = DispatchSemaphore(value: 0)
    let second = FileWatcher.shared.watch(file) { content in
      if content == .data(Data("3".utf8)) { delivered.signal() }
    }
    write(file, "3")
    let result = delivered.wait(timeout: .now() + 20)
    report(FileWatcher.shared.statistics) { $0.delivered = result == .success ? 1 : 0 }
    withExtendedLifetime(second) {}
  }

  /// `dropOneFolder`: watches `folder`/a/data.json and `folder`/b/data.json and deletes
  /// `folder`/a: a's file is missing and b's edit still arrives, with the library not started
  /// afresh; then `folder`/a is made again with its file, which arrives too.
  static func dropOneFolder(folder root: String) {
    let (a, b) = (root + "/a", root + "/b")
    for folder in [a, b] {
      make(folder)
      write(folder + "/data.json", "1")
    }
    let (aMissing, aBack, bChanged) = (
      DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)
    )
    let watchA = FileWatcher.shared.watch(a + "/data.json") { content in
      if content == .missing { aMissing.signal() }
      if content == .data(Data("2".utf8)) { aBack.signal() }
    }
    let watchB = FileWatcher.shared.watch(b + "/data.json") { content in
      if content == .data(Data("2".utf8)) { bChanged.signal() }
    }
    try! FileManager.default.removeItem(atPath: a)
    let missing = aMissing.wait(timeout: .now() + 20) == .success
    write(b + "/data.json", "2")
    let changed = bChanged.wait(timeout: .now() + 20) == .success
    let rebuildsAfterDrop = FileWatcher.shared.statistics.rebuilds
    make(a)
    write(a + "/data.json", "2")
    let back = aBack.wait(timeout: .now() + 20) == .success
    report(FileWatcher.shared.statistics) {
      $0.missing = missing
      $0.changed = changed
      $0.back = back
      $0.rebuildsAfterDrop = rebuildsAfterDrop
    }
    withExtendedLifetime((watchA, watchB)) {}
  }

  /// `moveFolderAway`: watches `folder`/a/data.json and renames `folder`/a to `folder`/gone: the
  /// file is missing, the kernel's watch (which followed the folder) is removed, a write in
  /// `folder`/gone is not taken for the file, and a new `folder`/a with the file arrives.
  static func moveFolderAway(folder root: String) {
    let (a, gone) = (root + "/a", root + "/gone")
    make(a)
    write(a + "/data.json", "1")
    let (missing, back) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    let wrongFile = Atomic<Int>(0)
    let watch = FileWatcher.shared.watch(a + "/data.json") { content in
      if content == .missing { missing.signal() }
      if content == .data(Data("moved".utf8)) { wrongFile.add(1, ordering: .relaxed) }
      if content == .data(Data("2".utf8)) { back.signal() }
    }
    try! FileManager.default.moveItem(atPath: a, toPath: gone)
    let wasMissing = missing.wait(timeout: .now() + 20) == .success
    let watchesWhileMissing = kernelWatches()
    write(gone + "/data.json", "moved")
    make(a)
    write(a + "/data.json", "2")
    let cameBack = back.wait(timeout: .now() + 20) == .success
    let statistics = FileWatcher.shared.statistics
    let wrongFiles = wrongFile.load(ordering: .relaxed)
    report(statistics) {
      $0.missing = wasMissing
      $0.back = cameBack
      $0.wrongFile = wrongFiles
      $0.kernelWatches = watchesWhileMissing
    }
    withExtendedLifetime(watch) {}
  }
}
