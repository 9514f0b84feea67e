import Foundation
import Testing
import TetherTesting

/// The built `notes` binary, beside the test bundle.
let notesPath = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
  .appending(path: "notes").path

/// The example's own Config/tether.conf.
let shippedConfig = URL(filePath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent().appending(path: "Config/tether.conf")
  .path

/// A test's own home: the XDG folders the shipped config puts every file in, inside a
/// temporary folder, so that tests run in parallel and never touch the user's.
struct Home {
  let folder: URL
  /// The config `notes` is started with (`--config`).
  var config: String = shippedConfig

  var defaultsFile: URL { folder.appending(path: "config/notes/defaults.ini") }
  var notesFile: URL { folder.appending(path: "data/notes/notes.json") }
  var envDirectory: URL { folder.appending(path: "config/notes/env") }

  var environment: [String: String] {
    [
      "XDG_DATA_HOME": folder.appending(path: "data").path,
      "XDG_CONFIG_HOME": folder.appending(path: "config").path,
    ]
  }

  /// Runs `notes --config CONFIG ARGUMENTS…`.
  func notes(_ arguments: String...) async throws -> ChildResult {
    try await runChild(notesPath, ["--config", config] + arguments, environment: environment)
  }

  /// Runs `notes --config CONFIG settings ARGUMENTS…`.
  func settings(_ arguments: String...) async throws -> ChildResult {
    try await runChild(
      notesPath, ["--config", config, "settings"] + arguments, environment: environment)
  }

  /// Runs `notes settings …` and records an issue unless it succeeds; its standard output.
  @discardableResult
  func succeeding(
    _ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> String {
    let result = try await runChild(
      notesPath, ["--config", config, "settings"] + arguments, environment: environment)
    #expect(
      result.status == 0, "settings \(arguments.joined(separator: " ")): \(result.errors)",
      sourceLocation: sourceLocation)
    return result.output
  }

  /// What each of the app's files holds now (a file that does not exist is left out), to
  /// compare before and after.
  func files() throws -> [String: Data] {
    var contents: [String: Data] = [:]
    for file in [defaultsFile, notesFile, envDirectory.appending(path: "motd")]
    where FileManager.default.fileExists(atPath: file.path) {
      contents[file.lastPathComponent] = try Data(contentsOf: file)
    }
    return contents
  }

  /// Writes `text` to the file `name` of the envdir folder, as a person would.
  func writeEnvFile(_ name: String, _ text: String) throws {
    try FileManager.default.createDirectory(at: envDirectory, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: envDirectory.appending(path: name))
  }
}

/// Runs `body` with a home of its own, removed afterwards.
func withHome<R>(_ body: (Home) async throws -> R) async throws -> R {
  try await withTemporaryDirectory { folder in try await body(Home(folder: folder)) }
}

/// The lines of NDJSON output, each parsed as an object.
func jsonLines(_ output: String) throws -> [[String: Any]] {
  try output.split(separator: "\n").map { line in
    let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
    guard let dictionary = object as? [String: Any] else {
      throw NotAnObject(line: String(line))
    }
    return dictionary
  }
}

/// A line of output that is not a JSON object.
struct NotAnObject: Error, CustomStringConvertible {
  let line: String
  var description: String { "not a JSON object: \(line)" }
}
