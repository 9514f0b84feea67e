import Foundation
import TetherWatcher

// How many watches the watcher and the kernel hold as files and folders come and go.
extension Helper {
  /// `countWatches`: watches `files` files spread over `folders` folders of `folder`; with
  /// `watchedRoot`, a file in `folder` first, so each folder is made where the watcher sees it
  /// appear.
  static func countWatches(folder root: String, folders: Int, files: Int, watchedRoot: Bool) {
    var watches: [FileWatch] = []
    if watchedRoot {
      make(root)
      watches.append(FileWatcher.shared.watch("\(root)/root.json") { _ in })
    }
    for index in 0..<files {
      let folder = "\(root)/folder\(index % folders)"
      make(folder)
      watches.append(FileWatcher.shared.watch("\(folder)/file\(index).json") { _ in })
    }
    FileWatcher.shared.waitForThread()
    report(FileWatcher.shared.statistics) { $0.files = watches.count }
  }

  /// `releaseFolders`: watches a file in each of 20 folders of `folder` (watch descriptors up
  /// to 21, which `/proc` writes in hex), cancels every watch, and reports how many watches the
  /// kernel still holds once the watcher counts only its control folder's, and how often the
  /// library was started afresh.
  static func releaseFolders(folder root: String) {
    let watches = (0..<20).map { index in
      let folder = "\(root)/folder\(index)"
      make(folder)
      return FileWatcher.shared.watch("\(folder)/data.json") { _ in }
    }
    for watch in watches { watch.cancel() }
    let deadline = ContinuousClock.now + .seconds(20)
    while FileWatcher.shared.statistics.inotifyWatches != 1 && ContinuousClock.now < deadline {
      usleep(1_000)
    }
    let statistics = FileWatcher.shared.statistics
    let kernel = kernelWatches()
    report(statistics) {
      $0.kernelWatches = kernel
      $0.rebuilds = statistics.rebuilds
    }
  }

  /// `watchWhilePaused`: with the watcher thread paused, watches a file in a new folder of
  /// `folder` — the call must not wait for the thread, which adds the folder's watch itself —
  /// writes the file and resumes the thread; reports whether the write was delivered, the
  /// kernel's and the watcher's count of watches once the thread has caught up, and the
  /// kernel's once the folder is released.
  static func watchWhilePaused(folder root: String) {
    let folder = root + "/new"
    make(folder)
    // The first watch starts the thread, and waits for it.
    let first = FileWatcher.shared.watch(root + "/first.json") { _ in }
    FileWatcher.shared.pauseForTesting()
    let recorder = TextRecorder(awaiting: "2")
    let watch = FileWatcher.shared.watch(folder + "/data.json") { recorder.record($0) }
    write(folder + "/data.json", "2")
    FileWatcher.shared.resumeForTesting()
    let delivered = recorder.waitAndCount().delivered
    FileWatcher.shared.waitForThread()
    let (standing, counted) = (kernelWatches(), FileWatcher.shared.statistics.inotifyWatches)
    watch.cancel()
    let deadline = ContinuousClock.now + .seconds(20)
    // The control folder's and the root's, and those of the folders above the root.
    while kernelWatches() != 2 + FileWatcher.shared.statistics.ancestorWatches
      && ContinuousClock.now < deadline
    {
      usleep(1_000)
    }
    let statistics = FileWatcher.shared.statistics
    let afterRelease = kernelWatches()
    report(statistics) {
      $0.delivered = delivered
      $0.kernelWatches = standing
      $0.countedWatches = counted
      $0.kernelWatchesAfterRelease = afterRelease
    }
    withExtendedLifetime(first) {}
  }

  /// `rewatchFolder`: watches `folder`/a/one.json, cancels, watches `folder`/b/other.json (which
  /// the watcher thread serves after the cancel's request), then `folder`/a/two.json: reports
  /// whether the folder's kernel watch stood throughout (not removed and made again), whether a
  /// write to two.json is delivered, how long after the last cancel the watches went, and
  /// whether a file of a folder deleted and made again while idle is delivered.
  static func rewatchFolder(folder root: String) {
    let (a, b) = (root + "/a", root + "/b")
    make(a)
    make(b)
    let one = FileWatcher.shared.watch(a + "/one.json") { _ in }
    let before = Set(inotifyWatchLines() ?? [])
    one.cancel()
    let other = FileWatcher.shared.watch(b + "/other.json") { _ in }
    let recorder = TextRecorder(awaiting: "2")
    let two = FileWatcher.shared.watch(a + "/two.json") { recorder.record($0) }
    let after = Set(inotifyWatchLines() ?? [])
    let stood = before.isSubset(of: after) && after.count == before.count + 1
    write(a + "/two.json", "2")
    let delivered = recorder.waitAndCount().delivered
    two.cancel()
    other.cancel()
    let cancelled = ContinuousClock.now
    let deadline = cancelled + .seconds(20)
    while FileWatcher.shared.statistics.inotifyWatches != 1 && ContinuousClock.now < deadline {
      usleep(1_000)
    }
    let released = ContinuousClock.now - cancelled
    let left = kernelWatches()
    // Idle again, then deleted and made again: its file is watched afresh.
    FileWatcher.shared.watch(a + "/three.json") { _ in }.cancel()
    try! FileManager.default.removeItem(atPath: a)
    // Once the thread has taken the deleted folder's watch as gone.
    while kernelWatches() != 1 && ContinuousClock.now < deadline + .seconds(20) {
      usleep(1_000)
    }
    make(a)
    let (first, second) = (TextRecorder(awaiting: "3"), TextRecorder(awaiting: "4"))
    let three = FileWatcher.shared.watch(a + "/three.json") { content in
      first.record(content)
      second.record(content)
    }
    // The first write may be found by the check a new watch makes; the second needs the watch.
    write(a + "/three.json", "3")
    _ = first.waitAndCount()
    write(a + "/three.json", "4")
    let deliveredAgain = second.waitAndCount().delivered == 1
    withExtendedLifetime(three) {}
    report(FileWatcher.shared.statistics) {
      $0.stood = stood
      $0.delivered = delivered
      $0.deliveredAgain = deliveredAgain
      $0.releasedAfterMilliseconds = Int(released / .milliseconds(1))
      $0.kernelWatchesLeft = left
    }
  }
}
