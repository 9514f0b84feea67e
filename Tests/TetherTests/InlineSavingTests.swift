import Synchronization
import Testing
import Tether
import TetherInMemory
import TetherTesting

/// Tether's own keys take `withLock`'s changes inline; an app's key that wraps one of them and
/// hands on the subscriber it was given still gets every change through its own `save`.
@Suite(.tetherBootstrap()) struct InlineSavingTests {
  @Test func anAppsKeyWrappingATetherKeyIsAskedToSaveEveryChange() async throws {
    let saves = Saves()
    @Shared(CountingKey(name: "wrapped", saves: saves)) var value = 0
    for _ in 0..<3 { $value.withLock { $0 += 1 } }
    #expect(saves.didSet == 3, "the wrapper's own save, not the wrapped key's, takes changes")
    @Shared(.inMemory("wrapped")) var stored = -1
    #expect(stored == 3, "and it saved them through the wrapped key")
  }
}

/// Counts the `.didSet` saves it is asked for.
private final class Saves: Sendable {
  private let count = Mutex(0)
  var didSet: Int { count.withLock { $0 } }
  func saw(_ context: SaveContext) { if context == .didSet { count.withLock { $0 += 1 } } }
}

/// Keeps its value in the in-memory key `name`, handing that key its subscriber unchanged, and
/// counts the saves it is asked for.
private struct CountingKey: InMemoryForwardingKey, Hashable {
  let name: String
  let saves: Saves

  var id: String { "counting:" + name }

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
  func hash(into hasher: inout Hasher) { hasher.combine(name) }

  func save(_ value: Int, context: SaveContext, continuation: SaveContinuation) {
    saves.saw(context)
    InMemoryKey<Int>.inMemory(name).save(value, context: context, continuation: continuation)
  }
}
