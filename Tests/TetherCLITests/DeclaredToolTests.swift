import ArgumentParser
import Foundation
import Testing
import Tether
import TetherCommandLine
import TetherDefaults
import TetherFileStorage
import TetherTesting

/// A settings command built with an app's key declarations, run in this process: values are
/// read and written as the declared types, and what does not fit is refused with nothing
/// written.
@Suite struct DeclaredToolTests {
  struct Note: Codable, Equatable, Sendable {
    var text: String
  }

  static let keys: [KeyDeclaration] = [
    .key(.launches, "How many times the app has started."),
    .key(.notes, "The notes, oldest first."),
    .key(.theme, "The colour theme, when one is chosen."),
  ]

  /// Runs the settings command over `folder`'s config; the exit status.
  static func settings(_ arguments: [String], in folder: URL) async -> Int32 {
    let command = TetherCommand(
      name: "app settings", app: "app",
      strategies: [FileStorageStrategy.self, DefaultsStrategy.self], keys: keys)
    let (name, rest) = (arguments[0], Array(arguments.dropFirst()))
    do {
      try await command.run(
        [name, "--config", folder.appending(path: "tether.conf").path] + rest)
      return 0
    } catch let code as ExitCode {
      return code.rawValue
    } catch {
      Issue.record("run threw \(error), not an exit code")
      return -1
    }
  }

  static func writeConfig(in folder: URL) throws {
    try Data(
      """
      [keys]
      launches = defaults
      theme    = defaults
      notes    = file
      [strategy.defaults]
      file = \(folder.path)/defaults.ini
      [strategy.file]
      directory = \(folder.path)
      """.utf8
    ).write(to: folder.appending(path: "tether.conf"))
  }

  @Test func setRefusesWhatDoesNotFitTheDeclaredTypeAndWritesNothing() async throws {
    try await withTemporaryDirectory { folder in
      try Self.writeConfig(in: folder)
      let defaults = folder.appending(path: "defaults.ini")
      #expect(await Self.settings(["set", "launches", "3"], in: folder) == 0)
      let before = try Data(contentsOf: defaults)
      #expect(String(decoding: before, as: UTF8.self).contains("launches = 3"))
      for bad in ["abc", "1.5", "", "99999999999999999999"] {
        #expect(await Self.settings(["set", "launches", bad], in: folder) == 1, "\(bad)")
      }
      #expect(try Data(contentsOf: defaults) == before, "the file is untouched")
      #expect(await Self.settings(["set", "notes", #"{"a":1}"#], in: folder) == 1)
      #expect(!FileManager.default.fileExists(atPath: folder.appending(path: "notes.json").path))
    }
  }

  @Test func setGetResetAndImportGoThroughTheLibraryAsTheirTypes() async throws {
    try await withTemporaryDirectory { folder in
      try Self.writeConfig(in: folder)
      #expect(await Self.settings(["set", "notes", #"[{"text":"one"}]"#], in: folder) == 0)
      #expect(await Self.settings(["set", "theme", "dark mode"], in: folder) == 0)
      try await TetherSystem.withBootstrap(
        configuration: .file(folder.appending(path: "tether.conf").path),
        strategies: [FileStorageStrategy.self, DefaultsStrategy.self], keys: Self.keys
      ) {
        @Shared(.notes) var notes
        @Shared(.theme) var theme
        #expect(notes == [Note(text: "one")])
        #expect(theme == "dark mode")
      }
      #expect(await Self.settings(["reset", "notes"], in: folder) == 0)
      #expect(!FileManager.default.fileExists(atPath: folder.appending(path: "notes.json").path))

      // An import with one value that does not fit writes none of them.
      let values = folder.appending(path: "values.json")
      try Data(#"{"launches": 7, "theme": "light", "notes": [{"text": 2}]}"#.utf8).write(
        to: values)
      let defaults = try Data(contentsOf: folder.appending(path: "defaults.ini"))
      #expect(await Self.settings(["import", values.path], in: folder) == 1)
      #expect(try Data(contentsOf: folder.appending(path: "defaults.ini")) == defaults)
      try Data(#"{"launches": 7, "theme": null, "notes": [{"text": "two"}]}"#.utf8).write(
        to: values)
      #expect(await Self.settings(["import", values.path], in: folder) == 0)
      try await TetherSystem.withBootstrap(
        configuration: .file(folder.appending(path: "tether.conf").path),
        strategies: [FileStorageStrategy.self, DefaultsStrategy.self], keys: Self.keys
      ) {
        @Shared(.launches) var launches
        @Shared(.notes) var notes
        @Shared(.theme) var theme
        #expect(launches == 7)
        #expect(notes == [Note(text: "two")])
        #expect(theme == nil)
      }
    }
  }
}

extension SharedKey where Self == RegisteredKey<Int>.Default {
  fileprivate static var launches: Self { Self[.registered("launches"), default: 0] }
}

extension SharedKey where Self == RegisteredKey<[DeclaredToolTests.Note]>.Default {
  fileprivate static var notes: Self { Self[.registered("notes"), default: []] }
}

extension SharedKey where Self == RegisteredKey<String?>.Default {
  fileprivate static var theme: Self { Self[.registered("theme"), default: nil] }
}
