import Testing
import Tether
import TetherInMemory
import TetherTesting

/// The plain `tether` tool reads an app's config naming strategies only the app has: it
/// records them, says so for their keys, and serves every other key.
@Suite struct ForeignKindTests {
  static let text = """
    [keys]
    count = memory
    secret = envdir
    cached.* = cache
    [strategy.cache]
    kind = redis
    url = redis://localhost
    [strategy.envdir]
    folder = /etc/app/env
    [key.secret]
    anything = 1
    [key.count]
    colour = red
    """

  @Test func unknownKindsAreRecordedAndTheirOptionsNotChecked() throws {
    let errors = StrategyRegistry.diagnose(
      configuration: .string(Self.text, origin: "t.conf"), strategies: testStrategies,
      unknownKinds: .tolerated)
    // The memory key's option is still checked: only foreign kinds are let be.
    #expect(errors.map(\.description) == ["t.conf:13: unknown option colour in [key.count]"])

    let registry = try StrategyRegistry(
      configuration: .string(Self.text.replacing("colour = red", with: ""), origin: "t.conf"),
      strategies: testStrategies, unknownKinds: .tolerated)
    #expect(
      registry.foreignStrategies == [
        ForeignStrategy(name: "cache", kind: "redis", line: 6, section: "strategy.cache"),
        ForeignStrategy(name: "envdir", kind: "envdir", line: 8, section: "strategy.envdir"),
      ])
    #expect(registry.foreignKind(of: "secret") == "envdir")
    #expect(registry.foreignKind(of: "cached.a") == "redis")
    #expect(registry.foreignKind(of: "count") == nil)
    #expect(registry.foreignKind(of: "unmapped") == nil)
  }

  @Test func aKindNamedOnlyInKeysIsRecordedAtItsFirstRule() throws {
    let registry = try StrategyRegistry(
      configuration: .string("[keys]\na = memory\nb = envdir\nc = envdir\n", origin: "t.conf"),
      strategies: testStrategies, unknownKinds: .tolerated)
    #expect(
      registry.foreignStrategies == [
        ForeignStrategy(name: "envdir", kind: "envdir", line: 3, section: nil)
      ])
    #expect(
      registry.key(named: "c", as: Int.self).failure
        == .foreignStrategy(key: "c", kind: "envdir", location: "t.conf:4"))
  }

  @Test func aKeyOfAForeignKindFailsSayingSoAndEveryOtherKeyWorks() async throws {
    let registry = try StrategyRegistry(
      configuration: .string(Self.text.replacing("colour = red", with: ""), origin: "t.conf"),
      strategies: testStrategies, unknownKinds: .tolerated)
    try await TetherScope.$override.withValue(TetherScope(registry: registry)) {
      try await Self.holders()
    }
  }

  /// The body of the test above, out of its closure for the compiler's sake.
  static func holders() async throws {
    @Shared(.registered("secret")) var secret = "none"
    let error = try #require($secret.loadError as? TetherError)
    #expect(error == .foreignStrategy(key: "secret", kind: "envdir", location: "t.conf:3"))
    #expect(
      error.description
        == #"key "secret" is mapped to envdir (t.conf:3), a strategy this program does not have"#)
    @Shared(.registered("cached.page")) var page = 0
    #expect(
      $page.loadError as? TetherError
        == .foreignStrategy(key: "cached.page", kind: "redis", location: "t.conf:4"))
    @Shared(.registered("count")) var count = 0
    $count.withLock { $0 += 1 }
    #expect($count.loadError == nil && $count.saveError == nil && count == 1)
  }

  /// An app's registry (the default) still refuses kinds it does not have.
  @Test func byDefaultAnUnknownKindIsAnError() {
    #expect(
      StrategyRegistry.diagnose(
        configuration: .string(Self.text, origin: "t.conf"), strategies: testStrategies
      ).map(\.description) == [
        #"t.conf:6: unknown strategy kind "redis"; registered: loose, memory, probe"#,
        #"t.conf:8: unknown strategy kind "envdir"; registered: loose, memory, probe (a named instance needs kind = KIND)"#,
        "t.conf:13: unknown option colour in [key.count]",
      ])
  }
}

extension Result {
  /// The error, when this is a failure.
  var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
