import Foundation
import TetherWatcher

// A writer that has emptied a watched file and not written yet, while the watcher thread lags
// behind (paused, or held up by a slow subscriber): only the written bytes may arrive.
extension Helper {
  /// `laggingMidWrite`: a writer truncates the watched file of `folder` while the watcher
  /// thread is paused (as one lagging under load has yet to read the event), and a check of
  /// the file falls due then; the thread goes on, and the writer writes and closes. Only the
  /// written content may arrive, never the empty file.
  ///
  /// With `behindAWake`, a wake-up of the thread (a watch cancelled) and 5,000 other events
  /// are queued before the truncation: the check must wait for the events queued before it, not
  /// for any wake-up.
  static func laggingMidWrite(folder: String, behindAWake: Bool) {
    let file = "\(folder)/data.json"
    write(file, "before")
    let recorder = TextRecorder(awaiting: "after")
    let watch = FileWatcher.shared.watch(file) { recorder.record($0) }
    var other = behindAWake ? FileWatcher.shared.watch("\(folder)/other/x.json") { _ in } : nil
    Thread.sleep(forTimeInterval: 0.2)
    FileWatcher.shared.pauseForTesting()
    if behindAWake {
      other?.cancel()
      other = nil
      for index in 0..<2_500 { write("\(folder)/noise\(index)", "") }
    }
    let (writer, second) = truncateAndCheckWhilePaused(file)
    Thread.sleep(forTimeInterval: 0.15)
    FileWatcher.shared.resumeForTesting()
    Thread.sleep(forTimeInterval: 0.1)
    finishWriting(writer, recorder)
    withExtendedLifetime((watch, second)) {}
  }

  /// `emptiedBehindASlowSubscriber`: a subscriber of c.json takes 6 s, holding up the checks
  /// behind it; meanwhile a's check falls due, and after 5.5 s a writer truncates a. When a's
  /// check runs, a has been empty for half a second, not for the emptied wait, though the check
  /// is 6 s late: the writer is waited for, and only its bytes arrive, never the empty file.
  static func emptiedBehindASlowSubscriber(folder: String) {
    let (a, c) = ("\(folder)/a.json", "\(folder)/c.json")
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

  /// `missingWhileACheckWaits`: with the watcher thread paused, a check of b (emptied by a
  /// stalled writer) waits for the thread to read the events queued before it; a is deleted
  /// and checked meanwhile. a's removal needs nothing from the thread, and arrives while it is
  /// still paused: one file waiting for the thread holds up no other.
  static func missingWhileACheckWaits(folder: String) {
    let (a, b) = ("\(folder)/a.json", "\(folder)/b.json")
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
    report(FileWatcher.shared.statistics) { $0.missingWhilePaused = whilePaused == .success }
    withExtendedLifetime((watchA, watchB, secondA, secondB)) {}
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

  /// Writes "after" through `writer`, closes it, and reports once `recorder` has it: counted
  /// first, so the statistics include the events handled before the delivery (an overflow among
  /// them), which a thread lagging under load may not have reached yet.
  static func finishWriting(_ writer: FileHandle, _ recorder: TextRecorder) {
    try! writer.write(contentsOf: Data("after".utf8))
    try! writer.close()
    let arrivals = recorder.waitAndCount()
    report(FileWatcher.shared.statistics) {
      $0.delivered = arrivals.delivered
      $0.deliveries = arrivals.deliveries
      $0.empty = arrivals.empty
    }
  }
}
