package import Foundation

/// Where the config that maps keys to strategies comes from.
///
/// ```swift
/// try TetherSystem.bootstrap(
///   configuration: .file("Config/tether.conf"),
///   strategies: [InMemoryStrategy.self, FileStorageStrategy.self, DefaultsStrategy.self])
/// ```
public enum TetherConfiguration: Sendable {
  /// A config file; relative paths in it resolve against its folder.
  case file(String)
  /// Config text given in code; relative paths resolve against the current folder, and errors
  /// are located at `origin:line`.
  case string(String, origin: String = "<string>")

  /// The name errors are located at.
  package var origin: String {
    switch self {
    case .file(let path): return path
    case .string(_, let origin): return origin
    }
  }

  /// The folder relative paths resolve against.
  package var baseDirectory: URL {
    let cwd = URL(filePath: FileManager.default.currentDirectoryPath, directoryHint: .isDirectory)
    switch self {
    case .file(let path):
      let file = path.hasPrefix("/") ? URL(filePath: path) : cwd.appending(path: path)
      return file.deletingLastPathComponent().standardizedFileURL
    case .string:
      return cwd
    }
  }

  /// The parsed text.
  package func document() throws -> INIDocument {
    switch self {
    case .string(let text, let origin): return try INIDocument(parsing: text, origin: origin)
    case .file(let path): return try INIDocument(parsing: try contents(of: path), origin: path)
    }
  }

  /// The text parsed on past lines that do not parse (a repeated section header among them),
  /// which the document lists as its ``INIDocument/problems``: for reporting every error.
  package func lenientDocument() throws(TetherError) -> INIDocument {
    switch self {
    case .string(let text, let origin):
      return try INIDocument(
        lenientlyParsing: Data(text.utf8), origin: origin, mergingSections: false)
    case .file(let path):
      return try INIDocument(
        lenientlyParsing: try contents(of: path), origin: path, mergingSections: false)
    }
  }

  private func contents(of path: String) throws(TetherError) -> Data {
    try UserFile.read(path, as: "the config file")
  }
}
