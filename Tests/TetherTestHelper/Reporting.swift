import Foundation
import TetherTestHelperSupport
import TetherWatcher

// The report every scenario ends with, and the kernel's view of the watcher's watches.
extension Helper {
  /// Prints `statistics` as a report, with what `fill` adds for the scenario.
  static func report(
    _ statistics: WatcherStatistics, _ fill: (inout HelperReport) -> Void = { _ in }
  ) {
    var report = HelperReport()
    fill(&report)
    report.inotifyWatches = statistics.inotifyWatches
    report.watchedFiles = statistics.watchedFiles
    report.polled = statistics.polledPaths.count
    report.overflows = statistics.overflows
    report.examinedDirectories = statistics.examinedDirectories
    report.fallback = statistics.fallback.map { "\($0)" }
    report.pollReasons = Set(statistics.polledPaths.values.map { "\($0)" }).sorted()
    if let flags = inotifyInfo(statistics)?.first(where: { $0.hasPrefix("flags:") }),
      let octal = Int(flags.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8)
    {
      report.closeOnExec = octal & Int(O_CLOEXEC) != 0
    }
    emit(report)
  }

  /// Prints `report` as the helper's last line of output.
  static func emit(_ report: HelperReport) {
    print(try! report.line())
  }

  /// The watches the kernel holds for the watcher's inotify descriptor (its `/proc` entry).
  static func kernelWatches() -> Int { inotifyWatchLines()?.count ?? -1 }

  /// The `inotify wd:` lines of the watcher's `/proc` entry, once it has one: a line a watch.
  static func inotifyWatchLines() -> [Substring]? {
    inotifyInfo(FileWatcher.shared.statistics)?.filter { $0.hasPrefix("inotify wd:") }
  }

  /// The lines of the `/proc` entry of the watcher's inotify descriptor, once it has one.
  static func inotifyInfo(_ statistics: WatcherStatistics) -> [Substring]? {
    guard let fd = statistics.descriptor,
      let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8)
    else { return nil }
    return info.split(separator: "\n")
  }
}
