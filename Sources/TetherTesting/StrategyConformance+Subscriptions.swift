import Observation
import Synchronization
import Testing
import Tether
import TetherLocking

/// Subscriptions: outside edits arrive, cancelled subscriptions stop, own saves do not come
/// back as outside edits.
extension Checks {
  func externalChanges() async throws {
    guard let externalEdit else { return }
    let holder = SharedReader(wrappedValue: 0, try key("external"))
    try await externalEdit(name("external"), 7)
    await eventually(
      "external: an outside edit (7) reaches a holder, which still has \(holder.wrappedValue)"
    ) { holder.wrappedValue == 7 }

    let observed = Atomic<Bool>(false)
    withObservationTracking {
      _ = holder.wrappedValue
    } onChange: {
      observed.store(true, ordering: .relaxed)
    }
    try await externalEdit(name("external"), 8)
    await eventually("external: an outside edit fires Observation") {
      observed.load(ordering: .relaxed)
    }
    expect(
      holder.wrappedValue == 8,
      "external: the holder has the edited value (8), not \(holder.wrappedValue)")
  }

  func cancellation() async throws {
    guard let externalEdit else { return }
    let watched = name("cancel")
    let holder = SharedReader(wrappedValue: 0, try key("cancel"))
    let key = try readerKey("cancel", as: Int.self)
    let received = Yields()
    let subscription = key.subscribe(context: .initialValue(0), subscriber: received.subscriber)
    try await externalEdit(watched, 1)
    await eventually(
      "cancellation: a subscription of \(String(describing: key)) receives an outside edit (1); it received \(received.values)"
    ) {
      received.values.contains(1)
    }
    subscription.cancel()
    try await externalEdit(watched, 2)
    try await externalEdit(watched, 3)
    await eventually(
      "cancellation: the holder still receives edits (3), it has \(holder.wrappedValue)"
    ) { holder.wrappedValue == 3 }
    let late = received.values.filter { $0 == 2 || $0 == 3 }
    expect(
      late.isEmpty,
      "cancellation: a cancelled subscription of \(String(describing: key)) still yielded \(late)")
  }

  /// A subscription is told of changes made outside this process's references, never of the
  /// process's own saves: an echo arriving after a later local change would undo it. With
  /// `externalEdit`, an outside edit after the saves marks the point by which any echo has
  /// come (deliveries keep their order); without, a short window catches synchronous echoes.
  func echo() async throws {
    let key = try directKey("echo")
    let received = Yields()
    let subscription = key.subscribe(context: .initialValue(0), subscriber: received.subscriber)
    defer { subscription.cancel() }
    await probeSave(key, 21, context: .userInitiated, "echo")
    await probeSave(key, 22, context: .didSet, "echo")
    if let externalEdit {
      try await externalEdit(name("echo"), 23)
      await eventually(
        "echo: a subscription of \(String(describing: key)) receives an outside edit (23); it received \(received.values)"
      ) { received.values.contains(23) }
    } else {
      // Not a wait for an event: the window in which an echo would show.
      try await Task.sleep(for: min(deadline / 10, .milliseconds(200)))
    }
    let echoed = received.values.prefix { $0 != 23 }.filter { $0 == 21 || $0 == 22 }
    expect(
      echoed.isEmpty,
      """
      echo: own saves came back as outside edits: a subscription of \(String(describing: key)) \
      yielded \(echoed), the values this process saved (21 with context .userInitiated, 22 \
      with .didSet)
      """)
  }
}

/// What a subscription of the suite's received, in order (`nil`: the initial value).
final class Yields: Sendable {
  private let received = UnfairMutex<[Int?]>([])

  var values: [Int?] { received.withLock { $0 } }

  var subscriber: SharedSubscriber<Int> {
    SharedSubscriber { [self] result in
      if case .success(let value) = result { received.withLock { $0.append(value) } }
    }
  }
}
