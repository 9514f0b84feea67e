import Testing
import Tether
import TetherInMemory
import TetherTesting

/// Each case of a test under the trait gets a bootstrap of its own.
@Suite(
  .tetherBootstrap(
    configuration: .string("[keys]\ncount = memory"), strategies: [InMemoryStrategy.self]))
struct TetherBootstrapTraitTests {
  /// In-memory values outlive their references within a scope, so a shared scope would show a
  /// case the value an earlier one left.
  @Test(arguments: 1...4) func eachCaseStartsFromTheDefault(value: Int) {
    @Shared(.registered("count")) var count = 0
    #expect(count == 0)
    #expect($count.loadError == nil, "the trait's configuration maps the name")
    $count.withLock { $0 = value }
    @Shared(.inMemory("direct")) var direct = 0
    #expect(direct == 0)
    $direct.withLock { $0 = value }
  }
}
