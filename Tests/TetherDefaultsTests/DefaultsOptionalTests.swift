import Foundation
import Testing
import Tether
import TetherDefaults
import TetherTesting

/// An `Optional` key holds `nil` whatever its default: `nil` is written as `name =`, with
/// nothing after the `=`, which no value of any type is written as (an empty text is `""`).
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct DefaultsOptionalTests {
  /// Set to `nil` and saved, a key whose default is 5 reads `nil` in a fresh scope.
  @Test func nilSurvivesARoundTripWhateverTheDefault() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("# mine\nk = 3\n".utf8).write(to: file)
      let store = DefaultsStore(file: file)
      do {
        @Shared(.defaults("k", store: store)) var k: Int? = 5
        #expect(k == 3)
        $k.withLock { $0 = nil }
        try await $k.save()
      }
      #expect(contents(file) == "# mine\nk =\n")
      try await inAFreshScope {
        @Shared(.defaults("k", store: store)) var k: Int? = 5
        #expect(k == nil)
        #expect($k.loadError == nil)
        // And back: a value replaces the empty one on its line.
        $k.withLock { $0 = 6 }
        try await $k.save()
      }
      #expect(contents(file) == "# mine\nk = 6\n")
    }
  }

  /// `nil` and the empty text are two values of a `String?` key; a `String` key reads a
  /// hand-written `name =` as the empty text, as before.
  @Test func nilIsNotTheEmptyText() async throws {
    try await withTemporaryDirectory { folder in
      let store = DefaultsStore(file: folder.appending(path: "defaults.ini"))
      for value in [nil, "", "x"] as [String?] {
        do {
          @Shared(.defaults("s", store: store)) var s: String? = "default"
          $s.withLock { $0 = value }
          try await $s.save()
        }
        try await inAFreshScope {
          @Shared(.defaults("s", store: store)) var s: String? = "default"
          #expect(s == value, "wrote \(String(describing: value))")
          @Shared(.defaults("s", store: store)) var plain = "default"
          #expect(plain == (value ?? ""), "as a String key")
        }
      }
      for (value, name) in [([1, 2], "a"), (nil, "b")] as [([Int]?, String)] {
        do {
          @Shared(.defaults(name, store: store)) var array: [Int]? = [9]
          $array.withLock { $0 = value }
          try await $array.save()
        }
        try await inAFreshScope {
          @Shared(.defaults(name, store: store)) var array: [Int]? = [9]
          #expect(array == value, "\(name)")
        }
      }
    }
  }

  /// A key never set shows its default, `nil` or not: no line is not an empty line.
  @Test func aKeyNeverSetShowsItsDefault() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("other = 1\n".utf8).write(to: file)
      let store = DefaultsStore(file: file)
      try await inAFreshScope {
        @Shared(.defaults("k", store: store)) var k: Int? = 5
        @Shared(.defaults("n", store: store)) var n: Int? = nil
        #expect(k == 5)
        #expect(n == nil)
        #expect($k.loadError == nil && $n.loadError == nil)
        let required = await #expect(throws: TetherError.self) {
          try await Shared<Int?>(require: .defaults("k", store: store))
        }
        #expect(required == .noValue(key: #".defaults("k", store: \#(file.path))"#))
      }
      #expect(contents(file) == "other = 1\n")
    }
  }

  /// `tether get` shows `name =` as an empty literal, not as `""`, and `tether set` with an
  /// empty literal writes `name =` back, as `""` writes the empty text.
  @Test func theToolTellsTheEmptyValueFromTheEmptyText() async throws {
    try await withTemporaryDirectory { folder in
      let file = folder.appending(path: "defaults.ini")
      try Data("k =\ns = \"\"\n".utf8).write(to: file)
      let strategy = try DefaultsStrategy(options: StrategyOptions(["file": file.path]))
      let options = StrategyOptions()
      let stored = try strategy.storedText(of: "k", options: options)
      guard case .text(let empty, let note) = stored else {
        Issue.record("k: \(stored)")
        return
      }
      #expect(empty == "")
      #expect(note?.contains("nil") == true)
      #expect(try strategy.storedText(of: "s", options: options) == .text(#""""#))
      try strategy.setStoredText(#""""#, of: "k", options: options)
      try strategy.setStoredText("", of: "s", options: options)
      #expect(contents(file) == "k = \"\"\ns =\n")
    }
  }

  /// Runs `body` in a scope of its own, so that nothing this process knows of a file stands in
  /// for what it holds.
  private func inAFreshScope(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void
  ) async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string(""), strategies: [], operation: body)
  }
}
