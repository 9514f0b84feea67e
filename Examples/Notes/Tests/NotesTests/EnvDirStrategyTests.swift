import EnvDir
import Foundation
import Testing
import Tether
import TetherTesting

/// The app's own strategy, tested as Tether's are: the shared conformance suite, then what is
/// particular to it.
@Suite struct EnvDirStrategyTests {
  @Test func conformance() async throws {
    try await withTemporaryDirectory { folder in
      try await StrategyConformance.run(EnvDirStrategy.self, options: "directory = \(folder.path)")
    }
  }

  @Test func valuesAreTheirTextAndANewline() async throws {
    try await withTemporaryDirectory { folder in
      try await Self.inBootstrap(folder, Self.valuesAreTheirTextAndANewline)
    }
  }

  static func valuesAreTheirTextAndANewline(_ folder: URL) async throws {
    @Shared(.registered("count")) var count = 0
    @Shared(.registered("enabled")) var enabled = false
    @Shared(.registered("ratio")) var ratio = 0.0
    @Shared(.registered("text")) var text = ""
    $count.withLock { $0 = 42 }
    $enabled.withLock { $0 = true }
    $ratio.withLock { $0 = 0.1 }
    $text.withLock { $0 = "two\nlines\n" }
    for (name, stored) in [
      ("count", "42\n"), ("enabled", "true\n"), ("ratio", "0.1\n"), ("text", "two\nlines\n\n"),
    ] {
      let file = folder.appending(path: name)
      #expect(try String(contentsOf: file, encoding: .utf8) == stored, "\(name)")
    }
    // Read back as another process would, from the files alone.
    try Data("7\n".utf8).write(to: folder.appending(path: "count"))
    try Data("no newline".utf8).write(to: folder.appending(path: "text"))
    try await $count.load()
    try await $text.load()
    #expect(count == 7)
    #expect(text == "no newline")
    try await $text.load()
    try await $ratio.load()
    #expect(ratio == 0.1)
  }

  @Test func aMissingFileIsTheDefaultAndTextThatDoesNotParseAnErrorNamingTheFile() async throws {
    try await withTemporaryDirectory { folder in
      try await Self.inBootstrap(folder, Self.missingAndUnparsable)
    }
  }

  static func missingAndUnparsable(_ folder: URL) async throws {
    @Shared(.registered("missing")) var missing = 5
    #expect(missing == 5)
    #expect($missing.loadError == nil)
    #expect(!FileManager.default.fileExists(atPath: folder.appending(path: "missing").path))

    let file = folder.appending(path: "broken")
    try Data("abc\n".utf8).write(to: file)
    @Shared(.registered("broken")) var broken = 1
    #expect(broken == 1)
    #expect(
      $broken.loadError as? TetherError
        == .invalidValue(
          key: "broken", message: "\"abc\" is not a value of type Int", location: file.path))
    #expect(try Data(contentsOf: file) == Data("abc\n".utf8), "the file is left alone")

    try FileManager.default.createDirectory(
      at: folder.appending(path: "folder"), withIntermediateDirectories: true)
    @Shared(.registered("folder")) var notAFile = ""
    #expect(
      $notAFile.loadError as? TetherError
        == .unusableFile(folder.appending(path: "folder").path, reason: "not a regular file"))
  }

  @Test func resetRemovesTheFileAndHoldersShowTheirDefault() async throws {
    try await withTemporaryDirectory { folder in
      try await Self.inBootstrap(folder, Self.reset)
    }
  }

  static func reset(_ folder: URL) async throws {
    @Shared(.registered("motd")) var motd = "default"
    $motd.withLock { $0 = "stored" }
    try await $motd.save()
    #expect(FileManager.default.fileExists(atPath: folder.appending(path: "motd").path))
    try await $motd.reset()
    #expect(motd == "default")
    #expect(!FileManager.default.fileExists(atPath: folder.appending(path: "motd").path))
    try await $motd.reset()
  }

  @Test(arguments: ["../x", "/", "a/b", "", "a\nb", "tab\there", ".hidden"])
  func hostileNamesAreRefused(name: String) throws {
    let strategy = try EnvDirStrategy(options: StrategyOptions(["directory": "/tmp/envdir"]))
    #expect {
      _ = try strategy.key(named: name, as: String.self, options: StrategyOptions())
    } throws: { error in
      guard case .invalidKeyName(name, _) = error as? TetherError else { return false }
      return true
    }
  }

  @Test func typesThatAreNotLosslessStringConvertibleAreRefused() throws {
    let strategy = try EnvDirStrategy(options: StrategyOptions(["directory": "/tmp/envdir"]))
    #expect(throws: TetherError.unsupportedType("Array<Int>", key: "list", kind: "envdir")) {
      _ = try strategy.key(named: "list", as: [Int].self, options: StrategyOptions())
    }
    #expect(throws: TetherError.unsupportedType("Optional<Int>", key: "maybe", kind: "envdir")) {
      _ = try strategy.key(named: "maybe", as: Int?.self, options: StrategyOptions())
    }
  }

  @Test func theDirectoryIsRequired() {
    #expect(throws: TetherError.self) {
      _ = try EnvDirStrategy(options: StrategyOptions())
    }
  }

  /// Runs `body` in a bootstrap mapping every name to an envdir folder at `folder`.
  static func inBootstrap(
    _ folder: URL, _ body: (URL) async throws -> Void
  ) async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string("[strategy.envdir]\ndirectory = \(folder.path)\n[keys]\n* = envdir"),
      strategies: [EnvDirStrategy.self]
    ) {
      try await body(folder)
    }
  }
}
