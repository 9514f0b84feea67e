import Foundation
import Testing
import Tether
import TetherInMemory
import TetherTesting

struct Note: Codable, Equatable, Sendable {
  var text: String
}

extension SharedKey where Self == RegisteredKey<Int>.Default {
  static var launches: Self { Self[.registered("launches"), default: 0] }
}

extension SharedKey where Self == RegisteredKey<[Note]>.Default {
  static var notes: Self { Self[.registered("notes"), default: []] }
}

extension SharedKey where Self == RegisteredKey<String>.Default {
  static var launchesAsText: Self { Self[.registered("launches"), default: ""] }
}

/// Declarations as an app's `Keys.swift` would write them, at lines the messages name.
enum Declared {
  static let launches = KeyDeclaration.key(
    .launches, "How many times the app has started.", file: "Keys.swift", line: 4)
  static let notes = KeyDeclaration.key(.notes, "The notes.", file: "Keys.swift", line: 5)
}

/// With declarations, startup checks the config against them, all at once.
@Suite struct DeclarationCheckTests {
  /// The errors loading `text` as `t.conf` with `keys` throws, one by one.
  static func errors(
    _ text: String, keys: [KeyDeclaration],
    strategies: [any PersistenceStrategy.Type] = testStrategies
  ) -> [String] {
    do {
      _ = try StrategyRegistry(
        configuration: .string(text, origin: "t.conf"), strategies: strategies,
        declarations: keys)
      return []
    } catch let error as TetherError {
      return error.all.map(\.description)
    } catch {
      return ["not a TetherError: \(error)"]
    }
  }

  @Test func aDeclaredKeyTheConfigDoesNotMapIsAnErrorAtItsDeclaration() async throws {
    let expected =
      #"Keys.swift:4: key "launches" is declared, but t.conf maps it to no strategy (no [keys] entry or pattern matches it); add "launches = <strategy>" under [keys]"#
    #expect(
      Self.errors("[keys]\nnotes = memory\n", keys: [Declared.launches, Declared.notes])
        == [expected])
    // As bootstrap throws it: one error as itself.
    let error = await #expect(throws: TetherError.self) {
      try await TetherSystem.withBootstrap(
        configuration: .string("[keys]\nnotes = memory\n", origin: "t.conf"),
        strategies: testStrategies, keys: [Declared.launches, Declared.notes]
      ) {}
    }
    #expect(error?.description == expected)
    // A pattern maps it.
    #expect(
      Self.errors(
        "[keys]\nlaunch* = memory\nnotes = memory\n", keys: [Declared.launches, Declared.notes]
      ).isEmpty)
  }

  @Test func anExactNameOrKeySectionNoDeclaredKeyHasIsAnErrorWithTheNearestName() {
    let text = """
      [keys]
      lanches = memory
      notes = memory
      session.* = memory
      zzz = memory
      * = memory
      [key.launchs]
      [key.nots]
      [key.notes]
      """
    #expect(
      Self.errors(text, keys: [Declared.launches, Declared.notes]) == [
        #"t.conf:2: [keys] maps "lanches", which is not a declared key; did you mean "launches"?"#,
        #"t.conf:5: [keys] maps "zzz", which is not a declared key"#,
        #"t.conf:7: [key.launchs] gives options of "launchs", which is not a declared key; did you mean "launches"?"#,
        #"t.conf:8: [key.nots] gives options of "nots", which is not a declared key; did you mean "notes"?"#,
      ])
  }

  /// A `[key.NAME]` section whose `[keys]` line misspells the same name is one mistake, said
  /// once, at the `[keys]` line.
  @Test func aMisspeltNameInKeysAndItsSectionIsReportedOnce() {
    #expect(
      Self.errors("[keys]\nlanches = memory\n[key.lanches]\n", keys: [Declared.launches]) == [
        #"t.conf:2: [keys] maps "lanches", which is not a declared key; did you mean "launches"?"#,
        #"Keys.swift:4: key "launches" is declared, but t.conf maps it to no strategy (no [keys] entry or pattern matches it); add "launches = <strategy>" under [keys]"#,
      ])
  }

  @Test func aDeclaredTypeItsStrategyCannotStoreIsAnErrorNamingBothPlaces() {
    // `probe` stores Int and String only.
    let text = "[keys]\nnotes = probe\nlaunches = fast\n[strategy.fast]\nkind = probe\n"
    #expect(
      Self.errors(text, keys: [Declared.launches, Declared.notes]) == [
        #"Keys.swift:5: key "notes" is declared as [Note], which strategy "probe", mapped at t.conf:2, cannot store; map it to a strategy that can"#
      ])
    let named = KeyDeclaration.key(.notes, "Notes.", file: "Other.swift", line: 9)
    #expect(
      Self.errors("[keys]\nnotes = fast\n[strategy.fast]\nkind = probe\n", keys: [named]) == [
        #"Other.swift:9: key "notes" is declared as [Note], which strategy "fast" (kind probe), mapped at t.conf:2, cannot store; map it to a strategy that can"#
      ])
  }

  @Test func aNameDeclaredTwiceIsAnError() {
    let again = KeyDeclaration.key(.launches, "Again.", file: "Keys.swift", line: 12)
    let asText = KeyDeclaration.key(.launchesAsText, "As text.", file: "More.swift", line: 3)
    #expect(
      Self.errors("[keys]\n* = memory\n", keys: [Declared.launches, again, asText]) == [
        #"Keys.swift:12: key "launches" is declared twice (first at Keys.swift:4); declare each key once"#,
        #"More.swift:3: key "launches" is declared twice (first at Keys.swift:4, as Int there and as String here); declare each key once"#,
      ])
  }

  /// A strategy that does not declare its per-key options finds an unknown one when a key is
  /// resolved: for a declared key, that is at startup.
  @Test func anUnknownPerKeyOptionOfADeclaredKeyIsReportedAtStartup() {
    #expect(
      Self.errors(
        "[keys]\nlaunches = loose\n[key.launches]\nlabel = a\nlable = b\n",
        keys: [Declared.launches]) == ["t.conf:5: unknown option lable in [key.launches]"])
  }

  @Test func everyProblemIsThrownAtOnceConfigFirstThenEachFileByLine() throws {
    let text = """
      [keys]
      notes = probe
      lanches = memory
      x = nowhere
      """
    let late = KeyDeclaration.key(.launchesAsText, "Text.", file: "Keys.swift", line: 30)
    #expect(
      Self.errors(text, keys: [late, Declared.notes, Declared.launches]) == [
        #"t.conf:3: [keys] maps "lanches", which is not a declared key; did you mean "launches"?"#,
        #"t.conf:4: unknown strategy "nowhere"; registered: loose, memory, probe"#,
        #"t.conf:4: [keys] maps "x", which is not a declared key"#,
        #"Keys.swift:4: key "launches" is declared twice (first at Keys.swift:30, as String there and as Int here); declare each key once"#,
        #"Keys.swift:5: key "notes" is declared as [Note], which strategy "probe", mapped at t.conf:2, cannot store; map it to a strategy that can"#,
        #"Keys.swift:30: key "launches" is declared, but t.conf maps it to no strategy (no [keys] entry or pattern matches it); add "launches = <strategy>" under [keys]"#,
      ])
    // `diagnose`, for an app's settings command, lists the same.
    let diagnosed = StrategyRegistry.diagnose(
      configuration: .string(text, origin: "t.conf"), strategies: testStrategies,
      declarations: [late, Declared.notes, Declared.launches])
    #expect(
      diagnosed.map(\.description)
        == Self.errors(text, keys: [late, Declared.notes, Declared.launches]))
  }

  @Test func withoutDeclarationsNothingNewIsChecked() {
    #expect(Self.errors("[keys]\nlanches = memory\nnotes = probe\n", keys: []).isEmpty)
  }

  @Test func undeclaredKeysKeepWorkingBesideDeclaredOnes() async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string("[keys]\n* = memory\n"), strategies: testStrategies,
      keys: [Declared.launches, Declared.notes]
    ) {
      @Shared(.registered("undeclared")) var other = "a"
      $other.withLock { $0 = "b" }
      @Shared(.launches) var launches
      $launches.withLock { $0 += 1 }
      #expect($other.loadError == nil && $other.saveError == nil && other == "b")
      #expect($launches.loadError == nil && launches == 1)
    }
  }

  /// Declared keys are resolved at startup, in the bootstrap's own scope: their values belong
  /// to it, as an undeclared key's do, never to the scope that called `withBootstrap`.
  @Test func declaredKeysResolvedAtStartupBelongToTheirBootstrap() async throws {
    try await TetherScope.withIsolatedScope {
      for _ in 0..<2 {
        try await TetherSystem.withBootstrap(
          configuration: .string("[keys]\n* = memory\n"), strategies: testStrategies,
          keys: [Declared.launches]
        ) {
          @Shared(.launches) var launches
          #expect(launches == 0, "a value from another bootstrap")
          $launches.withLock { $0 = 5 }
        }
      }
      // Nor was anything left in the calling scope.
      @Shared(.inMemory("launches")) var outside = -1
      #expect(outside == -1)
    }
  }

  @Test func aDeclarationIsLocatedWhereItIsWritten() {
    let line = #line + 1
    let declaration = KeyDeclaration.key(.launches, "Launches.")
    #expect(declaration.location == "\(#filePath):\(line)")
  }
}
