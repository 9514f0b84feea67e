import Foundation
import TetherFiles
import TetherWatcher

// Watching where inotify cannot serve: a descriptor past 1024, lowered kernel limits.
extension Helper {
  /// `manyDescriptors`: opens 1,100 descriptors first, so the library's would be >= 1024.
  static func manyDescriptors(folder: String) {
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
    let (delivered, watches) = watchAndChange(folders: [folder])
    report(FileWatcher.shared.statistics) { $0.delivered = delivered }
    for descriptor in descriptors { close(descriptor) }
    withExtendedLifetime(watches) {}
  }

  /// `watchFolders`: watches a file in each folder, changes each, counts deliveries.
  static func watchFolders(_ folders: [String]) {
    FileWatcher.shared.setPollInterval(.milliseconds(100))
    let (delivered, watches) = watchAndChange(folders: folders)
    report(FileWatcher.shared.statistics) { $0.delivered = delivered }
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
}
