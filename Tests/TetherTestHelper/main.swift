// A child process for Tether's multi-process tests: each command sets up a situation that must
// not happen inside the shared test process (exact watch counts, a paused watcher, exhausted
// descriptors, lowered kernel limits), then prints one JSON object with what it saw.
import Foundation
import Synchronization
import Tether
import TetherDefaults
import TetherFileStorage
import TetherFiles
import TetherWatcher

enum Helper {
  static func main() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard let command = arguments.first else { fail("usage: tether-test-helper COMMAND ARGS") }
    let rest = Array(arguments.dropFirst())
    switch command {
    case "count-watches": countWatches(rest)
    case "release-folders": releaseFolders(rest)
    case "rewatch-folder": rewatchFolder(rest)
    case "watch-while-paused": watchWhilePaused(rest)
    case "overflow": overflow(rest)
    case "rewatch-deleted-folder": rewatchDeletedFolder(rest)
    case "overflow-lost-wake": overflowLostWake(rest)
    case "made-before-ancestor-watch": madeBeforeAncestorWatch(rest)
    case "ancestor-removed-before-watch": ancestorRemovedBeforeWatch(rest)
    case "dropped-folder-found-later": droppedFolderFoundLater(rest)
    case "overflow-mid-write": overflowMidWrite(rest)
    case "lagging-mid-write": laggingMidWrite(rest)
    case "emptied-behind-a-slow-subscriber": emptiedBehindASlowSubscriber(rest)
    case "missing-while-a-check-waits": missingWhileACheckWaits(rest)
    case "drop-one-folder": dropOneFolder(rest)
    case "move-folder-away": moveFolderAway(rest)
    case "many-descriptors": manyDescriptors(rest)
    case "watch-folders": watchFolders(rest)
    case "save-loop": saveLoop(rest)
    case "exit-pending": exitPending(rest)
    case "defaults-exit-pending": defaultsExitPending(rest)
    case "term-pending": termPending(rest)
    case "wait-for": waitFor(rest)
    case "write": writeValue(rest)
    case "read-only-folder": readOnlyFolder(rest)
    case "defaults-set": defaultsSet(rest)
    case "defaults-many": defaultsMany(rest)
    case "short-record-at-page-end": shortRecordAtPageEnd()
    default: fail("unknown command \(command)")
    }
  }

  /// `count-watches DIR FOLDERS FILES [watched-root]`: watches FILES files spread over FOLDERS
  /// folders of DIR; with `watched-root`, a file in DIR first, so each folder is made where the
  /// watcher sees it appear.
  static func countWatches(_ arguments: [String]) {
    let (root, folders, files) = (arguments[0], Int(arguments[1])!, Int(arguments[2])!)
    var watches: [FileWatch] = []
    if arguments.dropFirst(3).first == "watched-root" {
      make(root)
      watches.append(FileWatcher.shared.watch("\(root)/root.json") { _ in })
    }
    for index in 0..<files {
      let folder = "\(root)/folder\(index % folders)"
      make(folder)
      watches.append(FileWatcher.shared.watch("\(folder)/file\(index).json") { _ in })
    }
    FileWatcher.shared.waitForThread()
    report(FileWatcher.shared.statistics, extra: ["files": watches.count])
  }

  /// `release-folders DIR`: watches a file in each of 20 folders of DIR (watch descriptors up
  /// to 21, which `/proc` writes in hex), cancels every watch, and reports how many watches the
  /// kernel still holds once the watcher counts only its control folder's, and how often the
  /// library was started afresh.
  static func releaseFolders(_ arguments: [String]) {
    let watches = (0..<20).map { index in
      let folder = "\(arguments[0])/folder\(index)"
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
    report(statistics, extra: ["kernelWatches": kernel, "rebuilds": statistics.rebuilds])
  }

  /// Files whose creation (a create and a close event each) overflows the kernel's inotify
  /// queue: at least 20,000, more where the queue was made longer than the 16,384 default.
  static var overflowingFileCount: Int {
    let limit =
      (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
      .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16_384
    return max(20_000, limit + 1_000)
  }

  /// `overflow DIR`: pauses the watcher, creates 20,000 files beside the watched one and changes
  /// it, then resumes and waits for the change.
  static func overflow(_ arguments: [String]) {
    let folder = arguments[0]
    let file = "\(folder)/data.json"
    write(file, "before")
    let delivered = DispatchSemaphore(value: 0)
    let watch = FileWatcher.shared.watch(file) { content in
      if content == .data(Data("after".utf8)) { delivered.signal() }
    }
    FileWatcher.shared.pauseForTesting()
    for index in 0..<overflowingFileCount { write("\(folder)/noise\(index)", "") }
    write(file, "after")
    FileWatcher.shared.resumeForTesting()
    let result = delivered.wait(timeout: .now() + 20)
    report(FileWatcher.shared.statistics, extra: ["delivered": result == .success ? 1 : 0])
    withExtendedLifetime(watch) {}
  }

  /// `overflow-lost-wake DIR` (with `XDG_RUNTIME_DIR` a folder of its own): with the watcher
  /// paused and its queue overflowed, watches a file in a new folder from another thread, whose
  /// wake-up of the watcher thread (a write to the control file) is lost to the overflow.
  /// Resumes the watcher and reports whether that watch call returned.
  static func overflowLostWake(_ arguments: [String]) {
    let folder = arguments[0]
    make(folder)
    let watch = FileWatcher.shared.watch("\(folder)/data.json") { _ in }
    FileWatcher.shared.pauseForTesting()
    for index in 0..<overflowingFileCount { write("\(folder)/noise\(index)", "") }
    // A folder not made yet: its caller waits for the thread, which watches it through its
    // parent (a caller adds a new folder's watch itself only when the folder is there).
    make("\(folder)/new")
    let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"]!
    let controls = try! FileManager.default.contentsOfDirectory(atPath: runtime)
      .filter { $0.hasPrefix("tether-watch-") }
    guard controls.count == 1 else { fail("expected one control folder, found \(controls)") }
    let control = "\(runtime)/\(controls[0])/wake"
    func modified() -> Date {
      try! FileManager.default.attributesOfItem(atPath: control)[.modificationDate] as! Date
    }
    let pausedAt = modified()
    let returned = DispatchSemaphore(value: 0)
    Thread {
      let second = FileWatcher.shared.watch("\(folder)/new/later/data.json") { _ in }
      returned.signal()
      withExtendedLifetime(second) {}
    }.start()
    // Resumed only once the wake-up is written: before it, the reader would make room for it.
    let deadline = ContinuousClock.now + .seconds(30)
    while modified() == pausedAt && ContinuousClock.now < deadline { usleep(1_000) }
    FileWatcher.shared.resumeForTesting()
    let result = returned.wait(timeout: .now() + 20)
    report(FileWatcher.shared.statistics, extra: ["returned": result == .success ? 1 : 0])
    withExtendedLifetime(watch) {}
  }

  /// `overflow-mid-write DIR`: with the watcher paused, overflows its queue and truncates the
  /// watched file (a writer opened it and has not written yet); resumes it, waits past the settle
  /// delay, then writes and closes. Only the written content may arrive, never the empty file.
  static func overflowMidWrite(_ arguments: [String]) {
    let folder = arguments[0]
    let file = "\(folder)/data.json"
    write(file, "before")
    let recorder = TextRecorder(awaiting: "after")
    let watch = FileWatcher.shared.watch(file) { recorder.record($0) }
    FileWatcher.shared.pauseForTesting()
    for index in 0..<overflowingFileCount { write("\(folder)/noise\(index)", "") }
    let writer = FileHandle(forWritingAtPath: file)!
    try! writer.truncate(atOffset: 0)
    FileWatcher.shared.resumeForTesting()
    Thread.sleep(forTimeInterval: 0.2)
    finishWriting(writer, recorder)
    withExtendedLifetime(watch) {}
  }

  /// Writes "after" through `writer`, closes it, and reports once `recorder` has it: counted
  /// first, so the statistics include the events handled before the delivery (an overflow among
  /// them), which a thread lagging under load may not have reached yet.
  static func finishWriting(_ writer: FileHandle, _ recorder: TextRecorder) {
    try! writer.write(contentsOf: Data("after".utf8))
    try! writer.close()
    let counts = recorder.waitAndCount()
    report(FileWatcher.shared.statistics, extra: counts)
  }

  /// `lagging-mid-write DIR`: a writer truncates the watched file while the watcher thread is
  /// paused (as one lagging under load has yet to read the event), and a check of the file falls
  /// due then; the thread goes on, and the writer writes and closes. Only the written content may
  /// arrive, never the empty file.
  ///
  /// With `behind-a-wake`, a wake-up of the thread (a watch cancelled) and 5,000 other events
  /// are queued before the truncation: the check must wait for the events queued before it, not
  /// for any wake-up.
  static func laggingMidWrite(_ arguments: [String]) {
    let file = "\(arguments[0])/data.json"
    write(file, "before")
    let recorder = TextRecorder(awaiting: "after")
    let watch = FileWatcher.shared.watch(file) { recorder.record($0) }
    let behindAWake = arguments.dropFirst().first == "behind-a-wake"
    var other =
      behindAWake ? FileWatcher.shared.watch("\(arguments[0])/other/x.json") { _ in } : nil
    Thread.sleep(forTimeInterval: 0.2)
    FileWatcher.shared.pauseForTesting()
    if behindAWake {
      other?.cancel()
      other = nil
      for index in 0..<2_500 { write("\(arguments[0])/noise\(index)", "") }
    }
    let (writer, second) = truncateAndCheckWhilePaused(file)
    Thread.sleep(forTimeInterval: 0.15)
    FileWatcher.shared.resumeForTesting()
    Thread.sleep(forTimeInterval: 0.1)
    finishWriting(writer, recorder)
    withExtendedLifetime((watch, second)) {}
  }

  /// `emptied-behind-a-slow-subscriber DIR`: a subscriber of c.json takes 6 s, holding up the
  /// checks behind it; meanwhile a's check falls due, and after 5.5 s a writer truncates a. When
  /// a's check runs, a has been empty for half a second, not for the emptied wait, though the
  /// check is 6 s late: the writer is waited for, and only its bytes arrive, never the empty file.
  static func emptiedBehindASlowSubscriber(_ arguments: [String]) {
    let (a, c) = ("\(arguments[0])/a.json", "\(arguments[0])/c.json")
    write(a, "before")
    write(c, "before")
    let recorder = TextRecorder(awaiting: "after")
    let watchA = FileWatcher.shared.watch(a) { recorder.record($0) }
    let slow = DispatchSemaphore(value: 0)
    let watchC = FileWatcher.shared.watch(c) { _ in
      slow.signal()
      Thread.sleep(forTimeInterval: 6)
    }
    write(c, "after")
    slow.wait()
    // A new watch checks its file after the settle delay: here, once the subscriber returns.
    let secondA = FileWatcher.shared.watch(a) { _ in }
    Thread.sleep(forTimeInterval: 5.5)
    let writer = FileHandle(forWritingAtPath: a)!
    try! writer.truncate(atOffset: 0)
    Thread.sleep(forTimeInterval: 1)
    finishWriting(writer, recorder)
    withExtendedLifetime((watchA, watchC, secondA)) {}
  }

  /// With the watcher thread paused, truncates `file` through a writer that keeps it open (as
  /// one about to write), and after 0.1 s watches it once more: a new watch checks its file
  /// after the settle delay, and this check must wait for the thread to read the truncation.
  static func truncateAndCheckWhilePaused(_ file: String) -> (FileHandle, FileWatch) {
    let writer = FileHandle(forWritingAtPath: file)!
    try! writer.truncate(atOffset: 0)
    Thread.sleep(forTimeInterval: 0.1)
    return (writer, FileWatcher.shared.watch(file) { _ in })
  }

  /// `missing-while-a-check-waits DIR`: with the watcher thread paused, a check of b (emptied by
  /// a stalled writer) waits for the thread to read the events queued before it; a is deleted
  /// and checked meanwhile. a's removal needs nothing from the thread, and arrives while it is
  /// still paused: one file waiting for the thread holds up no other.
  static func missingWhileACheckWaits(_ arguments: [String]) {
    let (a, b) = ("\(arguments[0])/a.json", "\(arguments[0])/b.json")
    write(a, "before")
    write(b, "before")
    let missing = DispatchSemaphore(value: 0)
    let watchA = FileWatcher.shared.watch(a) { if $0 == .missing { missing.signal() } }
    let watchB = FileWatcher.shared.watch(b) { _ in }
    Thread.sleep(forTimeInterval: 0.2)
    FileWatcher.shared.pauseForTesting()
    let (writer, secondB) = truncateAndCheckWhilePaused(b)
    Thread.sleep(forTimeInterval: 0.2)
    unlink(a)
    let secondA = FileWatcher.shared.watch(a) { _ in }
    let whilePaused = missing.wait(timeout: .now() + 10)
    FileWatcher.shared.resumeForTesting()
    try! writer.close()
    report(
      FileWatcher.shared.statistics,
      extra: ["missingWhilePaused": whilePaused == .success ? 1 : 0])
    withExtendedLifetime((watchA, watchB, secondA, secondB)) {}
  }

  /// `rewatch-deleted-folder DIR`: the last watch of DIR/a is cancelled and the folder deleted
  /// before the watcher thread runs, so it removes a watch the kernel already dropped; then the
  /// folder is made again and watched, and an edit must arrive.
  static func rewatchDeletedFolder(_ arguments: [String]) {
    let folder = arguments[0] + "/a"
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
    report(FileWatcher.shared.statistics, extra: ["delivered": result == .success ? 1 : 0])
    withExtendedLifetime(second) {}
  }

  /// `drop-one-folder DIR`: watches DIR/a/data.json and DIR/b/data.json and deletes DIR/a: a's
  /// file is missing and b's edit still arrives, with the library not started afresh; then DIR/a
  /// is made again with its file, which arrives too.
  static func dropOneFolder(_ arguments: [String]) {
    let (a, b) = (arguments[0] + "/a", arguments[0] + "/b")
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
    report(
      FileWatcher.shared.statistics,
      extra: [
        "missing": missing ? 1 : 0, "changed": changed ? 1 : 0, "back": back ? 1 : 0,
        "rebuildsAfterDrop": rebuildsAfterDrop,
      ])
    withExtendedLifetime((watchA, watchB)) {}
  }

  /// `watch-while-paused DIR`: with the watcher thread paused, watches a file in a new folder of
  /// DIR — the call must not wait for the thread, which adds the folder's watch itself — writes
  /// the file and resumes the thread; reports whether the write was delivered, the kernel's and
  /// the watcher's count of watches once the thread has caught up, and the kernel's once the
  /// folder is released.
  static func watchWhilePaused(_ arguments: [String]) {
    let folder = arguments[0] + "/new"
    make(folder)
    // The first watch starts the thread, and waits for it.
    let first = FileWatcher.shared.watch(arguments[0] + "/first.json") { _ in }
    FileWatcher.shared.pauseForTesting()
    let recorder = TextRecorder(awaiting: "2")
    let watch = FileWatcher.shared.watch(folder + "/data.json") { recorder.record($0) }
    write(folder + "/data.json", "2")
    FileWatcher.shared.resumeForTesting()
    let delivered = recorder.waitAndCount()["delivered"]!
    FileWatcher.shared.waitForThread()
    let (standing, counted) = (kernelWatches(), FileWatcher.shared.statistics.inotifyWatches)
    watch.cancel()
    let deadline = ContinuousClock.now + .seconds(20)
    while kernelWatches() != 2 && ContinuousClock.now < deadline { usleep(1_000) }
    report(
      FileWatcher.shared.statistics,
      extra: [
        "delivered": delivered, "kernelWatches": standing, "countedWatches": counted,
        "kernelWatchesAfterRelease": kernelWatches(),
      ])
    withExtendedLifetime(first) {}
  }

  /// `rewatch-folder DIR`: watches DIR/a/one.json, cancels, watches DIR/b/other.json (which the
  /// watcher thread serves after the cancel's request), then DIR/a/two.json: reports whether the
  /// folder's kernel watch stood throughout (not removed and made again), whether a write to
  /// two.json is delivered, how long after the last cancel the watches went, and whether a file
  /// of a folder deleted and made again while idle is delivered.
  static func rewatchFolder(_ arguments: [String]) {
    let (a, b) = (arguments[0] + "/a", arguments[0] + "/b")
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
    let delivered = recorder.waitAndCount()["delivered"]!
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
    let deliveredAgain = second.waitAndCount()["delivered"]!
    withExtendedLifetime(three) {}
    report(
      FileWatcher.shared.statistics,
      extra: [
        "stood": stood ? 1 : 0, "delivered": delivered, "deliveredAgain": deliveredAgain,
        "releasedAfterMs": Int(released / .milliseconds(1)), "kernelWatchesLeft": left,
      ])
  }

  /// The `inotify wd:` lines of the watcher's `/proc` entry, once it has one: a line a watch.
  static func inotifyWatchLines() -> [Substring]? {
    inotifyInfo(FileWatcher.shared.statistics)?.filter { $0.hasPrefix("inotify wd:") }
  }

  /// `move-folder-away DIR`: watches DIR/a/data.json and renames DIR/a to DIR/gone: the file is
  /// missing, the kernel's watch (which followed the folder) is removed, a write in DIR/gone is
  /// not taken for the file, and a new DIR/a with the file arrives.
  static func moveFolderAway(_ arguments: [String]) {
    let (a, gone) = (arguments[0] + "/a", arguments[0] + "/gone")
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
    report(
      FileWatcher.shared.statistics,
      extra: [
        "missing": wasMissing ? 1 : 0, "back": cameBack ? 1 : 0,
        "wrongFile": wrongFile.load(ordering: .relaxed), "kernelWatches": watchesWhileMissing,
      ])
    withExtendedLifetime(watch) {}
  }

  /// `many-descriptors DIR`: opens 1,100 descriptors first, so the library's would be >= 1024.
  static func manyDescriptors(_ arguments: [String]) {
    // A soft limit of 1,024 is common: raise it to the hard limit, and say so if that is short.
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    var descriptors: [Int32] = []
    for _ in 0..<1100 {
      let descriptor = open("/dev/null", O_RDONLY)
      guard descriptor >= 0 else {
        FileHandle.standardError.write(Data("cannot open 1,100 descriptors: errno \(errno)\n".utf8))
        exit(2)
      }
      descriptors.append(descriptor)
    }
    FileWatcher.shared.setPollInterval(.milliseconds(100))
    let (delivered, watches) = watchAndChange(folders: [arguments[0]])
    report(FileWatcher.shared.statistics, extra: ["delivered": delivered])
    for descriptor in descriptors { close(descriptor) }
    withExtendedLifetime(watches) {}
  }

  /// `watch-folders DIR...`: watches a file in each folder, changes each, counts deliveries.
  static func watchFolders(_ arguments: [String]) {
    FileWatcher.shared.setPollInterval(.milliseconds(100))
    let (delivered, watches) = watchAndChange(folders: arguments)
    report(FileWatcher.shared.statistics, extra: ["delivered": delivered])
    withExtendedLifetime(watches) {}
  }

  /// Watches `data.json` in each folder, then `more.json` beside it (so it joins a folder that
  /// may be polled already), rewrites both, and returns how many changes arrived within 10
  /// seconds, with the watches (still live, for the report).
  static func watchAndChange(folders: [String]) -> (Int, [FileWatch]) {
    let delivered = DispatchSemaphore(value: 0)
    var watches: [FileWatch] = []
    let files = folders.flatMap { ["\($0)/data.json", "\($0)/more.json"] }
    for file in files {
      make(LexicalPath.parent(of: file))
      write(file, "1")
      watches.append(
        FileWatcher.shared.watch(file) { content in
          if content == .data(Data("2".utf8)) { delivered.signal() }
        })
    }
    for file in files { write(file, "2") }
    var count = 0
    for _ in files where delivered.wait(timeout: .now() + 10) == .success { count += 1 }
    return (count, watches)
  }

  /// `save-loop FILE`: saves 1, 2, 3, … with `save()` (written at once) until killed.
  static func saveLoop(_ arguments: [String]) {
    let counter = Shared(wrappedValue: 0, .fileStorage(URL(filePath: arguments[0])))
    let done = DispatchSemaphore(value: 0)
    Task {
      while true {
        counter.withLock { $0 += 1 }
        do { try await counter.save() } catch { fail("save failed: \(error)") }
      }
    }
    done.wait()
  }

  /// `exit-pending FILE [released]`: leaves 2 pending in the throttle window, then calls
  /// `exit(0)`; with `released`, once its holder (and the file's store with it) has gone.
  static func exitPending(_ arguments: [String]) {
    var value: Shared<Int>? = Shared(wrappedValue: 0, .fileStorage(URL(filePath: arguments[0])))
    value?.withLock { $0 = 1 }  // the leading write
    value?.withLock { $0 = 2 }  // pending until the window ends, a second from now
    if arguments.dropFirst().first == "released" { value = nil }
    withExtendedLifetime(value) { exit(0) }
  }

  /// `defaults-exit-pending FILE [released]`: exit-pending for a defaults key `count`.
  static func defaultsExitPending(_ arguments: [String]) {
    let store = DefaultsStore(file: URL(filePath: arguments[0]))
    var value: Shared<Int>? = Shared(wrappedValue: 0, .defaults("count", store: store))
    value?.withLock { $0 = 1 }
    value?.withLock { $0 = 2 }
    if arguments.dropFirst().first == "released" { value = nil }
    withExtendedLifetime(value) { exit(0) }
  }

  /// `term-pending FILE READY`: like exit-pending, with `flushOnTermination`; creates READY and
  /// waits for SIGTERM.
  static func termPending(_ arguments: [String]) {
    TetherSystem.flushOnTermination()
    let value = Shared(wrappedValue: 0, .fileStorage(URL(filePath: arguments[0])))
    value.withLock { $0 = 1 }
    value.withLock { $0 = 2 }
    write(arguments[1], "ready")
    while true { sleep(60) }
  }

  /// `wait-for FILE VALUE READY`: holds the file's key, creates READY, and waits until the key
  /// holds VALUE (exit 0), or 20 s pass.
  static func waitFor(_ arguments: [String]) {
    let value = Shared(wrappedValue: 0, .fileStorage(URL(filePath: arguments[0])))
    let expected = Int(arguments[1])!
    write(arguments[2], "ready")
    // Generous: the parent notices `ready` by polling, and a loaded machine slows both.
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
      if value.wrappedValue == expected {
        print("{\"seen\":\(expected)}")
        exit(0)
      }
      usleep(10_000)
    }
    fail("never saw \(expected); last \(value.wrappedValue)")
  }

  /// `write FILE VALUE`: sets the file's key to VALUE through `@Shared`, then exits (flushing).
  static func writeValue(_ arguments: [String]) {
    let value = Shared(wrappedValue: 0, .fileStorage(URL(filePath: arguments[0])))
    value.withLock { $0 = Int(arguments[1])! }
    exit(0)
  }

  /// `read-only-folder DIR`: a write into a folder made read-only fails; once it is writable
  /// again, a flush writes the change that was kept.
  static func readOnlyFolder(_ arguments: [String]) {
    let folder = arguments[0] + "/data"
    make(folder)
    let file = URL(filePath: folder + "/value.json")
    let value = Shared(wrappedValue: 0, .fileStorage(file))
    value.withLock { $0 = 1 }
    let semaphore = DispatchSemaphore(value: 0)
    Task {
      do { try await value.save() } catch { fail("first save failed: \(error)") }
      chmod(folder, 0o555)
      value.withLock { $0 = 2 }
      var failed = ""
      do {
        try await value.save()
      } catch {
        failed = String(cString: strerror((error as? SystemError)?.code ?? 0))
      }
      chmod(folder, 0o755)
      await TetherSystem.flush()
      let after = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
      let cleared = value.saveError == nil ? 1 : 0
      print(
        "{\"failed\":\"\(failed)\",\"afterFlush\":\"\(after)\",\"saveErrorCleared\":\(cleared)}")
      semaphore.signal()
    }
    semaphore.wait()
  }

  /// `defaults-set FILE KEY VALUE`: sets an Int through `@Shared` and exits without flushing
  /// by hand (UserDefaults on Linux loses such values).
  static func defaultsSet(_ arguments: [String]) {
    let store = DefaultsStore(file: URL(filePath: arguments[0]))
    let value = Shared(wrappedValue: 0, .defaults(arguments[1], store: store))
    value.withLock { $0 = Int(arguments[2])! }
    exit(0)
  }

  /// `defaults-many FILE PREFIX N [GO]`: writes keys PREFIX0…PREFIX(N-1), each saved at once,
  /// and reports when each save returned (`CLOCK_MONOTONIC`, the same in every process). With
  /// GO, it makes `GO.PREFIX.ready` and starts once GO exists, so two writers start together.
  static func defaultsMany(_ arguments: [String]) {
    let store = DefaultsStore(file: URL(filePath: arguments[0]))
    let (prefix, count) = (arguments[1], Int(arguments[2])!)
    if let go = arguments.dropFirst(3).first {
      write("\(go).\(prefix).ready", "")
      let deadline = monotonicNanoseconds() + 60_000_000_000
      while !FileManager.default.fileExists(atPath: go) {
        if monotonicNanoseconds() > deadline { fail("\(go) never appeared") }
        usleep(1000)
      }
    }
    let done = DispatchSemaphore(value: 0)
    let saved = Mutex<[UInt64]>([])
    Task {
      // Held, as an app holds its values (releasing the file's last holder unwatches it).
      var held: [Shared<Int>] = []
      for index in 0..<count {
        let value = Shared(wrappedValue: -1, .defaults("\(prefix)\(index)", store: store))
        held.append(value)
        value.withLock { $0 = index }
        do { try await value.save() } catch { fail("save \(index) failed: \(error)") }
        saved.withLock { $0.append(monotonicNanoseconds()) }
      }
      withExtendedLifetime(held) {}
      done.signal()
    }
    done.wait()
    let data = try! JSONSerialization.data(withJSONObject: ["saved": saved.withLock { $0 }])
    print(String(decoding: data, as: UTF8.self))
  }

  static func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
  }

  /// The watches the kernel holds for the watcher's inotify descriptor (its `/proc` entry).
  static func kernelWatches() -> Int { inotifyWatchLines()?.count ?? -1 }

  /// The lines of the `/proc` entry of the watcher's inotify descriptor, once it has one.
  static func inotifyInfo(_ statistics: WatcherStatistics) -> [Substring]? {
    guard let fd = statistics.descriptor,
      let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8)
    else { return nil }
    return info.split(separator: "\n")
  }

  static func report(_ statistics: WatcherStatistics, extra: [String: Int]) {
    var object: [String: Any] = extra
    object["inotifyWatches"] = statistics.inotifyWatches
    object["watchedFiles"] = statistics.watchedFiles
    object["polled"] = statistics.polledPaths.count
    object["overflows"] = statistics.overflows
    object["examinedDirectories"] = statistics.examinedDirectories
    object["fallback"] = statistics.fallback.map { "\($0)" } ?? ""
    object["pollReasons"] = Set(statistics.polledPaths.values.map { "\($0)" }).sorted()
    if let flags = inotifyInfo(statistics)?.first(where: { $0.hasPrefix("flags:") }),
      let octal = Int(flags.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8)
    {
      object["closeOnExec"] = octal & Int(O_CLOEXEC) != 0 ? 1 : 0
    }
    let data = try! JSONSerialization.data(withJSONObject: object, options: .sortedKeys)
    print(String(decoding: data, as: UTF8.self))
  }

  /// `short-record-at-page-end`: lists a `dirent` record named `a` (24 bytes, as `readdir`
  /// gives it) that ends where an inaccessible page begins, as the last record of `readdir`'s
  /// buffer can; reading more than the record is a segmentation fault. Prints the names seen.
  static func shortRecordAtPageEnd() {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    guard
      let pages = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
      pages != MAP_FAILED, mprotect(pages + page, page, PROT_NONE) == 0
    else { fail("cannot map a guarded page: errno \(errno)") }
    let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
    let length = (nameOffset + 2 + 7) / 8 * 8
    let record = pages + page - length
    record.storeBytes(
      of: UInt16(length), toByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_reclen)!,
      as: UInt16.self)
    record.storeBytes(
      of: UInt8(DT_REG), toByteOffset: MemoryLayout<dirent>.offset(of: \dirent.d_type)!,
      as: UInt8.self)
    record.storeBytes(of: UInt8(ascii: "a"), toByteOffset: nameOffset, as: UInt8.self)
    record.storeBytes(of: UInt8(0), toByteOffset: nameOffset + 1, as: UInt8.self)
    var given = false
    var names: [String] = []
    DirectoryListing.forEachEntry(
      from: {
        defer { given = true }
        return given ? nil : UnsafeRawPointer(record)
      }
    ) { name, _, _ in names.append(name()) }
    let data = try! JSONSerialization.data(withJSONObject: ["names": names])
    print(String(decoding: data, as: UTF8.self))
  }

  static func make(_ folder: String) {
    try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  }

  static func write(_ path: String, _ text: String) {
    try! Data(text.utf8).write(to: URL(filePath: path))
  }

  static func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
  }
}

/// The texts a watch delivers, for helpers that check what arrived and what must not have.
final class TextRecorder: Sendable {
  private let texts = Mutex<[String]>([])
  private let arrived = DispatchSemaphore(value: 0)
  private let awaited: String

  init(awaiting awaited: String) { self.awaited = awaited }

  func record(_ content: FileContent) {
    guard case .data(let data) = content else { return }
    let text = String(decoding: data, as: UTF8.self)
    texts.withLock { $0.append(text) }
    if text == awaited { arrived.signal() }
  }

  /// Waits up to 20 s for the awaited text; whether it came, how many deliveries, how many empty.
  func waitAndCount() -> [String: Int] {
    let result = arrived.wait(timeout: .now() + 20)
    let seen = texts.withLock { $0 }
    return [
      "delivered": result == .success ? 1 : 0, "deliveries": seen.count,
      "empty": seen.filter(\.isEmpty).count,
    ]
  }
}

Helper.main()
