import Foundation
import Testing
import Tether
import TetherInMemory
import TetherTesting

struct Fact: Codable, Equatable, Sendable {
  var text: String
}

extension SharedKey where Self == RegisteredKey<[Fact]>.Default {
  static var favoriteFacts: Self { Self[.registered("favoriteFacts"), default: []] }
}

@Suite(.tetherBootstrap()) struct RegisteredKeyTests {
  init() { LogCapture.install() }

  @Test func aRegisteredKeyMappedToMemoryAndInMemoryAreOneReference() async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string("[keys]\nx = memory\n"), strategies: [InMemoryStrategy.self]
    ) {
      @Shared(.registered("x")) var registered = 1
      @Shared(.inMemory("x")) var direct = 2
      #expect(direct == 1)
      $direct.withLock { $0 = 3 }
      #expect(registered == 3)
      #expect($registered.description == #"Shared<Int>(.registered("x"))"#)
    }
  }

  @Test func anAppDeclaresTypedKeysOnceWithTheirDefaults() async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string("[keys]\nfavoriteFacts = memory\n"),
      strategies: [InMemoryStrategy.self]
    ) {
      @Shared(.favoriteFacts) var favoriteFacts
      #expect(favoriteFacts.isEmpty)
      $favoriteFacts.withLock { $0.append(Fact(text: "1 is the loneliest number")) }
      @SharedReader(.favoriteFacts) var reader
      #expect(reader.count == 1)
      #expect($favoriteFacts.loadError == nil)
    }
  }

  /// A name no key can have, such as one with a `/` that a file strategy would turn into a
  /// path out of its directory, fails at first use, saying what is wrong with it; the strategy
  /// is never asked for it.
  @Test func aNameOutsideTheGrammarFailsAtFirstResolution() async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string("[keys]\na = memory\n* = probe\n", origin: "names.conf"),
      strategies: testStrategies
    ) {
      for name in ["../x", "a/b", "", "x y", "x*", ".x", "a\nb"] {
        @Shared(.registered(name)) var value = 1
        let reason = try #require(KeyName.problem(with: name))
        #expect($value.loadError as? TetherError == .invalidKeyName(name, reason: reason))
      }
      @Shared(.registered("ui.theme-2_b")) var fine = 1
      #expect($fine.loadError == nil)
    }
  }

  @Test func aTypeTheStrategyCannotStoreFailsAtFirstResolution() async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string("[keys]\n* = probe\n", origin: "unsupported.conf"),
      strategies: testStrategies
    ) {
      @Shared(.registered("flags")) var flags: [Bool] = [true]
      // The error has no line of its own; the log names the mapping's.
      #expect(
        LogCapture.messages(at: .error, containing: "unsupported.conf")
          == [
            #"cannot resolve key "flags" (mapped at unsupported.conf:2): key "flags": strategy "probe" cannot store values of type Array<Bool>"#
          ])
      #expect(flags == [true])
      let error = $flags.loadError as? TetherError
      #expect(error == .unsupportedType("Array<Bool>", key: "flags", kind: "probe"))
      #expect(
        error?.description
          == #"key "flags": strategy "probe" cannot store values of type Array<Bool>"#)
      $flags.withLock { $0 = [false] }
      #expect($flags.saveError as? TetherError == error)
    }
  }

  @Test func anUnmappedKeyKeepsItsDefaultSetsLoadErrorAndLogsOnce() async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string("[keys]\nsession.* = memory\n", origin: "unmapped.conf"),
      strategies: [InMemoryStrategy.self]
    ) {
      @Shared(.registered("lonely-key")) var value = 5
      @Shared(.registered("lonely-key")) var again = 6
      #expect(value == 5 && again == 5)
      #expect(
        $value.loadError as? TetherError == .unmappedKey("lonely-key", origin: "unmapped.conf"))
      $value.withLock { $0 = 7 }
      #expect($value.saveError != nil, "an unmapped key is never silently kept in memory")
      @Shared(.inMemory("lonely-key")) var memory = 0
      #expect(memory == 0)
      #expect(LogCapture.messages(at: .error, containing: "\"lonely-key\"").count == 1)
    }
  }

  @Test func aKeyUsedBeforeBootstrapKeepsItsDefault() async throws {
    await TetherScope.withIsolatedScope {
      @Shared(.registered("early-key")) var early = 1
      #expect(early == 1)
      #expect($early.loadError as? TetherError == .notBootstrapped(key: "early-key"))
      #expect(LogCapture.messages(at: .error, containing: "\"early-key\"").count == 1)
    }
  }

  @Test func exactNamesBeatPatternsAndTheLongestPatternWins() throws {
    let registry = try StrategyRegistry(
      configuration: .string(
        """
        [keys]
        * = memory
        session.* = probe
        session.user.* = loose
        session.user.id = memory
        """), strategies: testStrategies)
    #expect(registry.mapping.rule(for: "other")?.strategy == "memory")
    #expect(registry.mapping.rule(for: "session.token")?.strategy == "probe")
    #expect(registry.mapping.rule(for: "session.user.name")?.strategy == "loose")
    #expect(registry.mapping.rule(for: "session.user.id")?.strategy == "memory")
    #expect(registry.mapping.rule(for: "sessions")?.strategy == "memory")
  }

  @Test func onlyTheKindsTheConfigNamesAreInstantiated() throws {
    let registry = try StrategyRegistry(
      configuration: .string("[keys]\nx = memory\n[strategy.cache]\nkind = probe\n"),
      strategies: testStrategies)
    #expect(Set(registry.instances.keys) == ["memory", "cache"])
    #expect(registry.instances["cache"]?.kind == "probe")
  }

  @Test func namedInstancesAreSeparateFromTheirKind() async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string(
        """
        [keys]
        a = probe
        b = fast
        [strategy.probe]
        retries = 1
        [strategy.fast]
        kind = probe
        retries = 9
        """), strategies: testStrategies
    ) {
      let registry = try #require(TetherScope.current.registry)
      #expect((registry.instances["probe"]?.strategy as? ProbeStrategy)?.retries == 1)
      #expect((registry.instances["fast"]?.strategy as? ProbeStrategy)?.retries == 9)
    }
  }

  @Test func parallelBootstrapsNeverSeeEachOthersValues() async throws {
    try await withThrowingTaskGroup(of: Int.self) { group in
      for n in 1...8 {
        group.addTask {
          try await TetherSystem.withBootstrap(
            configuration: .string("[keys]\n* = memory\n"), strategies: [InMemoryStrategy.self]
          ) {
            @Shared(.registered("shared-name")) var value = 0
            for _ in 0..<100 {
              $value.withLock { $0 += n }
              await Task.yield()
            }
            return value / n
          }
        }
      }
      for try await hundreds in group { #expect(hundreds == 100) }
    }
  }
}
