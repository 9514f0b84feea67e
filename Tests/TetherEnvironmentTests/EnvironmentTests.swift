import Foundation
import Testing
import Tether
import TetherEnvironment
import TetherTesting

/// Tests run in parallel in one process: each uses variables of its own (a prefix with a UUID),
/// set through `EnvironmentVariables`, whose lock keeps `setenv` from moving the table under a
/// `getenv`.
struct Variables {
  /// `E<uuid>_`, unique to the test.
  let prefix = "E\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))_"

  /// Sets `name`'s variable (the prefix, then `name` as the strategy maps it).
  func set(_ name: String, _ value: String?) throws {
    try EnvironmentVariables.set(variable(name), to: value)
  }

  func variable(_ name: String) throws -> String {
    try EnvironmentStrategy(options: StrategyOptions(["prefix": prefix])).variable(for: name)
  }

  /// Runs `body` in a bootstrap mapping every name to the environment with this prefix.
  func withBootstrap(_ body: () async throws -> Void) async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string(
        "[keys]\n* = environment\n\n[strategy.environment]\nprefix = \(prefix)\n"),
      strategies: [EnvironmentStrategy.self]
    ) {
      try await body()
    }
  }
}

struct Point: Sendable, Equatable {
  var x = 0
}

enum Theme: String, Sendable {
  case light, dark
}

@Suite struct EnvironmentTests {
  @Test func namesMapToUpperCasedVariablesWithUnderscores() throws {
    let strategy = try EnvironmentStrategy(options: StrategyOptions(["prefix": "NOTES_"]))
    #expect(strategy.variable(for: "ui.theme") == "NOTES_UI_THEME")
    #expect(strategy.variable(for: "page-size.max_2") == "NOTES_PAGE_SIZE_MAX_2")
    #expect(strategy.variable(for: "Already_UPPER") == "NOTES_ALREADY_UPPER")
    let bare = try EnvironmentStrategy(options: StrategyOptions())
    #expect(bare.variable(for: "home") == "HOME")
  }

  @Test(arguments: ["1NOTES_", "NOTES-", "NO TES", "NOTES=", "É_"])
  func aPrefixNoShellCouldSetIsRefused(_ prefix: String) {
    #expect(throws: TetherError.self) {
      try EnvironmentStrategy(options: StrategyOptions(["prefix": prefix], origin: "e.conf"))
    }
  }

  @Test func scalarsOptionalsAndArraysParseAsDefaultsWritesThem() async throws {
    let variables = Variables()
    try variables.set("count", "42")
    try variables.set("flag", "yes")
    try variables.set("ratio", "0.25")
    try variables.set("title", " spaced \"as is\" ")
    try variables.set("site", "https://example.com/a?b=1#c")
    try variables.set("maybe", "7")
    try variables.set("nothing", "")
    try variables.set("list", "[1, 2, 3]")
    try variables.set("words", #"["a", "b c"]"#)
    try variables.set("theme", "dark")
    try variables.set("when", "2026-11-21T09:30:00.5Z")
    try await variables.withBootstrap {
      @SharedReader(.registered("count")) var count = 0
      @SharedReader(.registered("flag")) var flag = false
      @SharedReader(.registered("ratio")) var ratio = 1.0
      @SharedReader(.registered("title")) var title = ""
      @SharedReader(.registered("site")) var site = URL(string: "https://default.example")!
      @SharedReader(.registered("maybe")) var maybe: Int? = nil
      @SharedReader(.registered("nothing")) var nothing: Int? = 3
      @SharedReader(.registered("list")) var list: [Int] = []
      @SharedReader(.registered("words")) var words: [String] = []
      @SharedReader(.registered("theme")) var theme = Theme.light
      @SharedReader(.registered("when")) var when = Date(timeIntervalSince1970: 0)
      #expect(count == 42)
      #expect(flag)
      #expect(ratio == 0.25)
      #expect(title == " spaced \"as is\" ")
      #expect(site.absoluteString == "https://example.com/a?b=1#c")
      #expect(maybe == 7)
      #expect(nothing == nil)
      #expect(list == [1, 2, 3])
      #expect(words == ["a", "b c"])
      #expect(theme == .dark)
      #expect(when == Date(timeIntervalSinceReferenceDate: 816_946_200.5))
      #expect($count.loadError == nil && $list.loadError == nil && $when.loadError == nil)
    }
  }

  @Test func anUnsetVariableGivesTheDefault() async throws {
    let variables = Variables()
    try await variables.withBootstrap {
      @SharedReader(.registered("count")) var count = 5
      @SharedReader(.registered("maybe")) var maybe: Int? = 9
      #expect(count == 5)
      #expect(maybe == 9)
      #expect($count.loadError == nil)
      await #expect(throws: TetherError.noValue(key: #".registered("count")"#)) {
        _ = try await SharedReader<Int>(require: .registered("count"))
      }
    }
  }

  @Test func aValueThatDoesNotParseIsALoadErrorNamingTheVariable() async throws {
    let variables = Variables()
    try variables.set("count", "forty-two")
    let variable = try variables.variable("count")
    try await variables.withBootstrap {
      @SharedReader(.registered("count")) var count = 5
      #expect(count == 5)
      let error = try #require($count.loadError as? TetherError)
      guard
        case .invalidValue(key: "count", _, location: "environment variable \(variable)") = error
      else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(error.description.contains(variable))
      #expect(error.description.contains("forty-two"))
      await #expect(throws: error) { try await $count.load() }
    }
  }

  @Test func aTypeNoLiteralHoldsIsUnsupported() async throws {
    try await Variables().withBootstrap {
      @SharedReader(.registered("point")) var point = Point()
      #expect(
        $point.loadError as? TetherError
          == .unsupportedType("Point", key: "point", kind: "environment"))
      @SharedReader(.registered("nested")) var nested: [[Int]] = []
      #expect($nested.loadError as? TetherError != nil)
    }
  }

  @Test func sharedKeepsChangesInMemoryAndReportsReadOnly() async throws {
    let variables = Variables()
    try variables.set("count", "1")
    try await variables.withBootstrap {
      @Shared(.registered("count")) var count = 0
      #expect(count == 1)
      $count.withLock { $0 += 1 }
      #expect(count == 2)
      let readOnly = TetherError.readOnly(key: "count", kind: "environment")
      await expectEventually { $count.saveError != nil }
      #expect($count.saveError as? TetherError == readOnly)
      await #expect(throws: readOnly) { try await $count.save() }
      await #expect(throws: readOnly) { try await $count.transaction { $0 += 1 } }
      await #expect(throws: readOnly) { try await $count.reset() }
      #expect(count == 2)
      let variable = try variables.variable("count")
      #expect(EnvironmentVariables.value(of: variable) == "1")
    }
  }

  @Test func aRegisteredKeyAndTheDirectKeyOfItsVariableAreOneReference() async throws {
    let variables = Variables()
    try variables.set("ui.theme", "dark")
    let variable = try variables.variable("ui.theme")
    try await variables.withBootstrap {
      @SharedReader(.environment(variable)) var direct = "light"
      @Shared(.registered("ui.theme")) var registered = "light"
      #expect(direct == "dark")
      $registered.withLock { $0 = "blue" }
      #expect(direct == "blue")
      #expect($direct.description == "SharedReader<String>(.environment(\"\(variable)\"))")
    }
  }
}
