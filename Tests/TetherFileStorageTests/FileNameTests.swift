import Foundation
import Testing
import Tether
import TetherFileStorage
import TetherTesting

/// What the file strategy makes of the names it is given, and how it names a key in errors.
@Suite(.timeLimit(.minutes(1))) struct FileNameTests {
  /// `../../escaped` was stored two folders above the directory; a control character made a
  /// file `a\x01b.json`; a 5,000-byte name failed with ENAMETOOLONG.
  @Test func theStrategyRefusesANameOutsideTheGrammarForEveryCaller() async throws {
    try await withTemporaryDirectory { folder in
      let data = folder.appending(path: "a/b/data")
      let strategy = try FileStorageStrategy(options: StrategyOptions(["directory": data.path]))
      let options = StrategyOptions()
      for name in ["../../escaped", "a/b", "a\u{01}b", String(repeating: "x", count: 5000), ""] {
        let reason = try #require(KeyName.problem(with: name))
        #expect(throws: TetherError.invalidKeyName(name, reason: reason)) {
          _ = try strategy.key(named: name, as: Int.self, options: options)
        }
        await #expect(throws: TetherError.invalidKeyName(name, reason: reason)) {
          try await strategy.setStoredText(#"{"a":1}"#, of: name, options: options)
        }
      }
      #expect(try FileManager.default.subpathsOfDirectory(atPath: folder.path).isEmpty)
    }
  }

  /// A registered key's file is one of many: what does not decode is said of the key, by name,
  /// and of its file (a raw `DecodingError` said neither).
  @Test func aDecodingErrorNamesTheKeyAndItsFile() async throws {
    try await withTemporaryDirectory { folder in
      let url = folder.appending(path: "facts.json")
      try Data(#"["one", 2]"#.utf8).write(to: url)
      try await fileBootstrap(folder) {
        @Shared(.registered("facts")) var facts: [String] = []
        #expect(
          $facts.loadError.map { "\($0)" }
            == "\(url.path): key \"facts\": cannot be read as Array<String>: "
            + "at [1]: Expected to decode String but found number instead.")
      }
    }
  }
}
