import Foundation
import Synchronization
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

  /// Two types resolving one name at the same time (both past the first look, both inside the
  /// strategy at once): exactly one becomes the name's type, the other fails with the conflict.
  @Test func typesResolvingAtOnceLeaveExactlyOne() throws {
    let registry = try StrategyRegistry(
      configuration: .string("[keys]\n* = rendezvous\n"), strategies: [RendezvousStrategy.self])
    let strategy = try #require(registry.instances["rendezvous"]?.strategy as? RendezvousStrategy)
    let results = Mutex<[Bool]>([])
    let finished = DispatchGroup()
    // Threads, not tasks: each blocks in the strategy until the other arrives.
    for asInt in [true, false] {
      finished.enter()
      Thread.detachNewThread {
        let resolved =
          asInt
          ? Self.succeeded(registry.key(named: "level", as: Int.self))
          : Self.succeeded(registry.key(named: "level", as: String.self))
        results.withLock { $0.append(resolved) }
        finished.leave()
      }
    }
    #expect(finished.wait(timeout: .now() + 10) == .success)
    #expect(strategy.rendezvous.met, "the two resolutions were never inside the strategy at once")
    #expect(results.withLock { $0.sorted { !$0 && $1 } } == [false, true])
  }

  private static func succeeded<T>(_ result: Result<T, TetherError>) -> Bool {
    if case .success = result { return true }
    return false
  }
}

/// A strategy whose key requests wait for each other: two of them are inside it at once.
struct RendezvousStrategy: PersistenceStrategy {
  static let kind = "rendezvous"
  let rendezvous = Rendezvous(parties: 2)

  init(options: StrategyOptions) throws {}

  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    rendezvous.arrive()
    return InMemoryKey<Value>.inMemory("rendezvous:\(name)")
  }
}

/// Holds each arrival until `parties` have arrived (or a deadline passes, so a test fails
/// rather than hangs).
final class Rendezvous: Sendable {
  private let parties: Int
  private let arrived = Mutex(0)
  private let together = DispatchSemaphore(value: 0)
  private let allArrived = Atomic(false)

  init(parties: Int) {
    self.parties = parties
  }

  /// Whether every party arrived before the deadline.
  var met: Bool { allArrived.load(ordering: .acquiring) }

  func arrive() {
    let count = arrived.withLock { count in
      count += 1
      return count
    }
    if count == parties {
      allArrived.store(true, ordering: .releasing)
      for _ in 1..<parties { together.signal() }
    } else if count < parties {
      _ = together.wait(timeout: .now() + 5)
    }
  }
}
