/// The `changes` of a shared value: its current value, then each distinct change.
///
/// Each iterator keeps only the newest value it has not consumed yet: a consumer that keeps up
/// sees every change in order, and one that falls behind gets the latest value when it next
/// asks, never a queue of the values it missed. What an unread iterator holds is one value,
/// however many changes it misses. Equal consecutive values are skipped when `Value` is
/// `Equatable`.
struct SharedChanges<Value: Sendable>: AsyncSequence, Sendable {
  typealias Element = Value
  typealias Failure = Never

  let listen: @Sendable (@escaping @Sendable (Value) -> Void) -> SharedSubscription

  func makeAsyncIterator() -> Iterator {
    // A newer value replaces the one waiting: a changes stream is a view of the current value,
    // and a slow consumer must not make the writer's memory grow with every change.
    let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(1))
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
