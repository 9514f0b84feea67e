import Foundation
import Synchronization
import TetherWatcher

// The kernel's inotify queue overflowing while the watcher is paused.
extension Helper {
  /// Files whose creation (a create and a close event each) overflows the kernel's inotify
  /// queue: at least 20,000, more where the queue was made longer than the 16,384 default.
  static var overflowingFileCount: Int {
    let limit =
      (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
      .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16_384
    return max(20_000, limit + 1_000)
  }

  /// `overflow`: pauses the watcher, creates 20,000 files beside the watched one in `folder` and
  /// changes it, then resumes and waits for the change.
  static func overflow(folder: String) {
    let file = "\(folder)/data.json"
    write(file, "before")
    let recorder = TextRecorder(awaiting: "after")
    let watch = FileWatcher.shared.watch(file) { recorder.record($0) }
    FileWatcher.shared.pauseForTesting()
    for index in 0..<overflowingFileCount { write("\(folder)/noise\(index)", "") }
    write(file, "after")
    FileWatcher.shared.resumeForTesting()
    let arrivals = recorder.waitAndCount()
    report(FileWatcher.shared.statistics) { $0.delivered = arrivals.delivered }
    withExtendedLifetime(watch) {}
  }

  /// `overflowLostWake` (with `XDG_RUNTIME_DIR` a folder of its own): with the watcher paused
  /// and its queue overflowed, watches a file in a new folder of `folder` from another thread,
  /// whose wake-up of the watcher thread (a write to the control file) is lost to the overflow.
  /// Resumes the watcher and reports whether that watch call returned.
  static func overflowLostWake(folder: String) {
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
    report(FileWatcher.shared.statistics) { $0.returned = result == .success }
    withExtendedLifetime(watch) {}
  }

  /// `overflowMidWrite`: with the watcher paused, overflows its queue and truncates the watched
  /// file of `folder` (a writer opened it and has not written yet); resumes it, waits past the
  /// settle delay, then writes and closes. Only the written content may arrive, never the empty
  /// file.
  static func overflowMidWrite(folder: String) {
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
}

extension Helper {
  /// `overflowsKeepComing`: overflows the watcher's queue again and again (each round pauses
  /// the watcher, writes to noise files in `folder` until the queue overflows, and resumes it),
  /// and in the third round replaces the watched file by a rename after the overflow, so that
  /// its event is lost. The rounds go on until the change arrives, for at most 20 s: a change
  /// must not wait for the flood to end.
  static func overflowsKeepComing(folder: String) {
    let file = "\(folder)/data.json"
    write(file, "before")
    let recorder = TextRecorder(awaiting: "after")
    let watch = FileWatcher.shared.watch(file) { recorder.record($0) }
    let stop = Atomic(false)
    let changedAfter = Atomic(0)
    let stopped = DispatchSemaphore(value: 0)
    let noise = NoiseFiles(in: folder)
    Thread {
      var round = 0
      while !stop.load(ordering: .relaxed) {
        FileWatcher.shared.pauseForTesting()
        noise.modify(overflowingFileCount)
        if round == 2 {
          changedAfter.store(FileWatcher.shared.statistics.overflows, ordering: .relaxed)
          write("\(folder)/data.json.new", "after")
          guard rename("\(folder)/data.json.new", file) == 0 else { fail("rename: \(errno)") }
        }
        FileWatcher.shared.resumeForTesting()
        round += 1
        Thread.sleep(forTimeInterval: 0.01)
      }
      noise.close()
      stopped.signal()
    }.start()
    let arrivals = recorder.waitAndCount()
    let during = FileWatcher.shared.statistics.overflows - changedAfter.load(ordering: .relaxed)
    stop.store(true, ordering: .relaxed)
    stopped.wait()
    report(FileWatcher.shared.statistics) {
      $0.delivered = arrivals.delivered
      $0.overflowsBeforeDelivery = during
    }
    withExtendedLifetime(watch) {}
  }
}

extension Helper {
  /// `watchChurnUnderFlood`: see ``HelperCommand/watchChurnUnderFlood(folder:)``. In a process
  /// of its own: a flood of its watcher holds up every delivery of the process meanwhile.
  static func watchChurnUnderFlood(folder root: String) {
    let flooded = "\(root)/flooded"
    make(flooded)
    let anchor = FileWatcher.shared.watch("\(flooded)/anchor") { _ in }
    let floodDone = DispatchSemaphore(value: 0)
    Thread {
      for index in 0..<20_000 {
        let path = "\(flooded)/f\(index % 50)"
        write(path, "x")
        unlink(path)
      }
      floodDone.signal()
    }.start()
    // The folders do not exist: each watch waits through `root`, whose watch is wanted only
    // while one of them stands.
    let churned = DispatchGroup()
    for thread in 0..<8 {
      churned.enter()
      Thread {
        for round in 0..<150 {
          let watch = FileWatcher.shared.watch("\(root)/t\(thread)-\(round % 5)/f") { _ in }
          watch.cancel()
        }
        churned.leave()
      }.start()
    }
    churned.wait()
    func inode(_ path: String) -> UInt64 {
      var info = stat()
      guard stat(path, &info) == 0 else { fail("stat \(path): \(errno)") }
      return UInt64(info.st_ino)
    }
    /// The kernel's watches of this process's watcher: the mask of each, by inode.
    func masks() -> [UInt64: UInt32] {
      var masks: [UInt64: UInt32] = [:]
      for line in inotifyWatchLines() ?? [] {
        let fields = line.split(separator: " ")
        func field(_ name: String) -> Substring? {
          fields.first { $0.hasPrefix(name) }?.dropFirst(name.count)
        }
        if let inode = field("ino:").flatMap({ UInt64($0, radix: 16) }),
          let mask = field("mask:").flatMap({ UInt32($0, radix: 16) })
        {
          masks[inode] = mask
        }
      }
      return masks
    }
    let (rootInode, floodedInode) = (inode(root), inode(flooded))
    func eventually(_ condition: () -> Bool) -> Bool {
      let deadline = ContinuousClock.now + .seconds(30)
      while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        Thread.sleep(forTimeInterval: 0.01)
      }
      return true
    }
    let stood = eventually { masks()[floodedInode] != nil }
    let narrowed = eventually { masks()[rootInode].map { $0 & UInt32(IN_CREATE) == 0 } ?? false }
    floodDone.wait()
    // The watcher still works afterwards.
    let recorder = TextRecorder(awaiting: "alive")
    let watch = FileWatcher.shared.watch("\(root)/after.json") { recorder.record($0) }
    write("\(root)/after.json", "alive")
    let arrivals = recorder.waitAndCount()
    report(FileWatcher.shared.statistics) {
      $0.stood = stood
      $0.narrowed = narrowed
      $0.delivered = arrivals.delivered
    }
    withExtendedLifetime((anchor, watch)) {}
  }
}
