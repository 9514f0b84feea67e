import Foundation
import Testing
import Tether
import TetherDefaults
import TetherTesting

/// What a defaults file accepts from a name, and what its lock file may be.
@Suite(.timeLimit(.minutes(1))) struct DefaultsNameTests {
  static let injected = "demo.x = 1\n[ui]\ntheme"

  /// A direct key is checked as a registered one is: a name with a line break once wrote its
  /// lines (a `[ui]` section among them) into the file.
  @Test func aDirectKeyWithANameOutsideTheGrammarWritesNothing() async throws {
    try await withTemporaryDirectory { folder in
      try await defaultsBootstrap(folder) {
        let store = DefaultsStore(file: folder.appending(path: "defaults.ini"))
        try Data("[demo]\nkeep = 1\n".utf8).write(to: store.file)
        @Shared(.defaults(Self.injected, store: store)) var value = "light"
        let expected = TetherError.invalidKeyName(
          Self.injected, reason: try #require(KeyName.problem(with: Self.injected)))
        #expect($value.loadError as? TetherError == expected)
        $value.withLock { $0 = "dark" }
        await #expect(throws: expected) { try await $value.save() }
        #expect(contents(store.file) == "[demo]\nkeep = 1\n")
      }
    }
  }

  /// The strategy itself refuses the name, for a key and for the tool's stored-text calls: no
  /// caller of the library gets past it.
  @Test func theStrategyRefusesANameOutsideTheGrammarForEveryCaller() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("[demo]\nkeep = 1\n".utf8).write(to: file)
      let strategy = try DefaultsStrategy(options: StrategyOptions(["file": file.path]))
      let options = StrategyOptions()
      for name in [Self.injected, "a b", "", "../x"] {
        #expect(throws: TetherError.self) {
          _ = try strategy.key(named: name, as: String.self, options: options)
        }
        #expect(throws: TetherError.self) {
          try strategy.setStoredText("dark", of: name, options: options)
        }
        #expect(throws: TetherError.self) {
          _ = try strategy.storedText(of: name, options: options)
        }
      }
      #expect(contents(file) == "[demo]\nkeep = 1\n")
    }
  }

  /// A planted `.defaults.ini.lock` link made a save create the file it points to. The save
  /// fails instead, and its error names the key (the file's path is shared by all its keys).
  @Test func aLockFileThatIsALinkIsNotFollowedAndTheErrorNamesTheKey() async throws {
    try await withTemporaryDirectory { folder in
      try await defaultsBootstrap(folder) {
        let outside = folder.appending(path: "outside")
        let lock = folder.appending(path: ".defaults.ini.lock")
        try FileManager.default.createSymbolicLink(at: lock, withDestinationURL: outside)
        @Shared(.registered("count")) var count = 0
        $count.withLock { $0 = 1 }
        await #expect {
          try await $count.save()
        } throws: { error in
          let description = "\(error)"
          return description.hasPrefix(#"key "count" was not saved: "#)
            && description.contains("\(lock.path): the lock file is a symbolic link")
        }
        #expect(!FileManager.default.fileExists(atPath: outside.path))
        #expect(
          !FileManager.default.fileExists(atPath: folder.appending(path: "defaults.ini").path))
      }
    }
  }
}
