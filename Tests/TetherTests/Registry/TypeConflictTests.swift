import Testing
import Tether
import TetherInMemory
import TetherTesting

/// One name has one value type per registry: its declared type, or the first it resolved as.
@Suite struct TypeConflictTests {
  init() { LogCapture.install() }

  @Test func aSecondTypeOfOneNameIsALoadErrorNeverASecondValue() async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string("[keys]\n* = memory\n"), strategies: [InMemoryStrategy.self]
    ) {
      try await Self.twoHoldersOfOneName()
    }
  }

  /// The body of the test above (a `withBootstrap` closure this size trips the compiler).
  static func twoHoldersOfOneName() async throws {
    @Shared(.registered("level")) var number = 1
    @Shared(.registered("level")) var text = "one"
    let conflict = TetherError.typeConflict(
      key: "level", type: "String", existing: "Int (first used as that)")
    #expect($text.loadError as? TetherError == conflict)
    #expect(
      $text.loadError.map { "\($0)" }
        == #"key "level" is used as String, but it is Int (first used as that); a name has one value type (two would be two values that never meet)"#
    )
    #expect(text == "one")
    // Its changes go nowhere, and say why.
    $text.withLock { $0 = "two" }
    #expect($text.saveError as? TetherError == conflict)
    await #expect(throws: conflict) { try await $text.save() }
    await #expect(throws: conflict) { try await $text.load() }
    // The first type keeps working, unaware of the other holder.
    $number.withLock { $0 = 2 }
    #expect($number.loadError == nil && $number.saveError == nil)
    @Shared(.registered("level")) var again = 0
    #expect(again == 2)
    @Shared(.inMemory("level")) var stored = 0
    #expect(stored == 2)
  }

  @Test func aDeclaredNameHasItsDeclaredTypeFromTheStart() async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string("[keys]\n* = memory\n"), strategies: [InMemoryStrategy.self],
      keys: [Declared.launches]
    ) {
      // Used as String before any Int holder: the declaration decides, not the first use.
      @Shared(.launchesAsText) var text
      #expect(
        $text.loadError as? TetherError
          == .typeConflict(
            key: "launches", type: "String", existing: "Int (declared at Keys.swift:4)"))
      @Shared(.launches) var launches
      #expect($launches.loadError == nil)
    }
  }

  /// A type that failed to resolve claims nothing: the type that then resolves is the name's.
  @Test func aTypeThatFailedToResolveDoesNotClaimTheName() async throws {
    try await TetherSystem.withBootstrap(
      configuration: .string("[keys]\n* = probe\n"), strategies: testStrategies
    ) {
      @Shared(.registered("flags")) var flags: [Bool] = []
      #expect(
        $flags.loadError as? TetherError
          == .unsupportedType("Array<Bool>", key: "flags", kind: "probe"))
      @Shared(.registered("flags")) var count = 0
      #expect($count.loadError == nil)
    }
  }

  /// Types racing to resolve one name: exactly one wins, every use of it succeeds, every use
  /// of the other fails with the conflict.
  @Test func typesRacingForOneNameLeaveExactlyOne() async throws {
    for round in 0..<20 {
      let registry = try StrategyRegistry(
        configuration: .string("[keys]\n* = memory\n"), strategies: [InMemoryStrategy.self])
      let name = "race\(round)"
      let outcomes = await withTaskGroup(of: (isInt: Bool, resolved: Bool).self) { group in
        for task in 0..<16 {
          group.addTask {
            if task.isMultiple(of: 2) {
              return (true, Self.succeeded(registry.key(named: name, as: Int.self)))
            }
            return (false, Self.succeeded(registry.key(named: name, as: String.self)))
          }
        }
        return await group.reduce(into: []) { $0.append($1) }
      }
      let ints = outcomes.filter(\.isInt).map(\.resolved)
      let strings = outcomes.filter { !$0.isInt }.map(\.resolved)
      #expect(Set(ints).count == 1 && Set(strings).count == 1 && ints[0] != strings[0])
    }
  }

  private static func succeeded<T>(_ result: Result<T, TetherError>) -> Bool {
    if case .success = result { return true }
    return false
  }
}
