import Foundation

/// The helper's scenarios, one per `HelperCommand` (in the files named after what they try), and
/// what they share: making folders, writing files, failing.
enum Helper {
  /// Makes `folder` and its missing parents.
  static func make(_ folder: String) {
    try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  }

  /// Writes `text` to the file at `path` (made, or emptied first).
  static func write(_ path: String, _ text: String) {
    try! Data(text.utf8).write(to: URL(filePath: path))
  }

  /// Writes `message` to standard error and exits 2.
  static func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
  }
}
