import Tether
import TetherInMemory

/// A key that keeps its value in memory under `name`, whatever its id.
protocol InMemoryForwardingKey: SharedKey<Int> {
  var name: String { get }
}

extension InMemoryForwardingKey {
  func load(context: LoadContext<Int>, continuation: LoadContinuation<Int>) {
    InMemoryKey<Int>.inMemory(name).load(context: context, continuation: continuation)
  }

  func subscribe(
    context: LoadContext<Int>, subscriber: SharedSubscriber<Int>
  ) -> SharedSubscription {
    InMemoryKey<Int>.inMemory(name).subscribe(context: context, subscriber: subscriber)
  }

  func save(_ value: Int, context: SaveContext, continuation: SaveContinuation) {
    InMemoryKey<Int>.inMemory(name).save(value, context: context, continuation: continuation)
  }
}
