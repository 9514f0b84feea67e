/// The `changes` of a shared value: its current value, then each distinct change.
///
/// Each iterator buffers every change it has not consumed yet, so a slow consumer sees them all
/// in order; equal consecutive values are skipped when `Value` is `Equatable`.
struct SharedChanges<Value: Sendable>: AsyncSequence, Sendable {
  typealias Element = Value
  typealias Failure = Never

  let listen: @Sendable (@escaping @Sendable (Value) -> Void) -> SharedSubscription

  func makeAsyncIterator() -> Iterator {
    let (stream, continuation) = AsyncStream<Value>.makeStream()
    let subscription = listen { continuation.yield($0) }
    // The stream ends when its iterator is released; that cancels the subscription.
    continuation.onTermination = { _ in subscription.cancel() }
    return Iterator(base: stream.makeAsyncIterator(), isEqual: Equality.comparer(for: Value.self))
  }

  struct Iterator: AsyncIteratorProtocol {
    var base: AsyncStream<Value>.Iterator
    let isEqual: ((Value, Value) -> Bool)?
    var last: Value?

    mutating func next(isolation actor: isolated (any Actor)?) async -> Value? {
      while let value = await base.next(isolation: actor) {
        if let last, let isEqual, isEqual(last, value) { continue }
        last = value
        return value
      }
      return nil
    }

    mutating func next() async -> Value? {
      await next(isolation: nil)
    }
  }
}
