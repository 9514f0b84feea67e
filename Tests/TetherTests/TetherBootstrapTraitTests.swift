import Testing
import Tether
import TetherInMemory
import TetherTesting

/// Each case of a test under the trait gets a bootstrap of its own (the README's sample).
@Suite(
  .tetherBootstrap(
    configuration: .string("[keys]\ncount = memory"), strategies: [InMemoryStrategy.self]))
struct TetherBootstrapTraitTests {
  // In-memory values outlive their references within a bootstrap: a shared one would show a
  // case the value another case left.
  @Test(arguments: 1...4) func eachCaseStartsFromTheDefault(value: Int) {
    @Shared(.registered("count")) var count = 0
    #expect(count == 0 && $count.loadError == nil)
    $count.withLock { $0 = value }
    @Shared(.inMemory("direct")) var direct = 0
    #expect(direct == 0)
    $direct.withLock { $0 = value }
  }
}
