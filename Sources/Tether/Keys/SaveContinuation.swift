import Synchronization

/// What a key's `save` resumes, exactly once, from any thread.
///
/// The same rules as ``LoadContinuation``: a continuation never resumed or resumed twice is
/// reported, and the caller awaiting it goes on.
public struct SaveContinuation: Sendable {
  private var box: SaveBox

  /// Creates a continuation that hands its result to `callback`.
  ///
  /// Keys that wrap other keys use this to forward a save; `description` names the key in
  /// diagnostics.
  public init(
    _ description: String,
    callback: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    self.box = SaveBox(subject: description) { result in
      if let result { callback(result) }
    }
  }

  /// A continuation that hands its result to `deliver`; with `caller`, the key may hand work
  /// back to the calling thread through ``runOnCaller(_:)``.
  package init(
    subject: any Sendable, caller: CallerWork? = nil,
    deliver: @escaping @Sendable (Result<Void, any Error>?) -> Void
  ) {
    self.box = SaveBox(subject: subject, caller: caller, deliver: deliver)
  }

  /// A continuation that reports to `target`, which it keeps alive until then and which names
  /// the key in diagnostics: a stored reference saves on every change, and a closure or a
  /// description per save would cost an allocation or an existential copy.
  package init(target: any SaveResultTarget) {
    self.box = SaveBox(target: target)
  }

  /// Resumes saying the value was saved.
  public func resume() { box.resume(.success(())) }

  /// Resumes with the error that prevented the save; the shared value sets `saveError`.
  public func resume(throwing error: any Error) { box.resume(.failure(error)) }

  /// Resumes with a result.
  public func resume(with result: Result<Void, any Error>) { box.resume(result) }

  /// What this continuation tells its result to, when that is a shared value rather than a
  /// caller: continuations of one target are told alike, so a key that merges pending saves may
  /// keep the newest of them and let the others go with ``resumeSuperseded()``.
  package var target: ObjectIdentifier? { box.target }

  /// Resumes telling nothing: a newer continuation of the same ``target`` will tell the result
  /// of writing this save's value, or a newer one.
  package func resumeSuperseded() { box.supersede() }

  /// Hands `work` back to the thread that called the key's `save`, to run right after that call
  /// returns and the shared value's lock is let go; `false` (the work is not taken) when the
  /// save has no such caller or this is not its thread.
  package func runOnCaller(_ work: @escaping @Sendable () -> Void) -> Bool {
    box.caller?.take(work) ?? false
  }
}

/// A shared value's own save continuations, reused once its key is done with them.
///
/// A shared value saves on every change, and a new continuation each time (an allocation, a
/// deinit, the target's retain and release) was a third of an in-memory `withLock` (callgrind).
/// A key is done with a continuation when nothing else holds it and it was resumed: an
/// in-memory key by the time `save` returns, a throttled file key once the change's newer save
/// supersedes it. Guard it with the shared value's lock.
package struct SaveContinuations {
  /// Resumed and held by nothing else: the next save's continuation.
  private var spare: SaveContinuation?
  /// The last save's, which its key still held when `save` returned.
  private var last: SaveContinuation?

  package init() {}

  /// The continuation for `target`'s next save.
  package mutating func next(for target: any SaveResultTarget) -> SaveContinuation {
    guard let reused = spare.take() else { return SaveContinuation(target: target) }
    reused.rearm()
    return reused
  }

  /// Takes back the continuation just handed to the key's `save`, once that returned.
  package mutating func saved(_ continuation: consuming SaveContinuation) {
    var current = continuation
    // A previous one the key still holds is let go of here: the key alone ends it.
    if var previous = last.take(), previous.use() == .done { spare = previous }
    switch current.use() {
    case .done: if spare == nil { spare = current }
    case .held: last = current
    case .dropped: break  // Let go now, so its deinit reports it.
    }
  }

  /// Lets go of every continuation: a box held here while its key still holds it keeps its
  /// target alive, so the target's holders all going must end that (no cycle).
  package mutating func removeAll() {
    spare = nil
    last = nil
  }
}

extension SaveContinuation {
  fileprivate enum Use { case done, held, dropped }

  /// Where the key is with it: done (resumed, and held by nothing else, so it no longer keeps
  /// its target alive), still holding it, or done without resuming it.
  fileprivate mutating func use() -> Use {
    guard isKnownUniquelyReferenced(&box) else { return .held }
    return box.disarmIfResumed() ? .done : .dropped
  }

  fileprivate func rearm() { box.rearm() }
}

/// The object whose life is the continuation's: it delivers once, or `nil` when dropped.
private final class SaveBox: Sendable {
  private let once = ResumeOnce(operation: "save")
  private let closure: ClosureDelivery?
  /// A target, which the box keeps alive by a retain of its own (`retained`) while armed: from
  /// when it is made or rearmed until it is recycled or deinitialized, so that a recycled box
  /// kept by its target makes no cycle. `unowned(unsafe)`: never touched while not retained.
  private unowned(unsafe) let reference: (any SaveResultTarget)?
  /// The same object for its retain and release: a trivial value, where binding `reference`
  /// would itself retain it and release it again. Unchecked: the object is `reference`, a
  /// `Sendable` target, typed `AnyObject` only because `Unmanaged` cannot hold an existential.
  private nonisolated(unsafe) let retained: Unmanaged<AnyObject>?
  private let armed: Atomic<Bool>
  let caller: CallerWork?
  let target: ObjectIdentifier?

  /// An object, so that a box without one lets go of it with a single release of `nil`.
  final class ClosureDelivery: Sendable {
    let subject: any Sendable
    let deliver: @Sendable (Result<Void, any Error>?) -> Void

    init(subject: any Sendable, deliver: @escaping @Sendable (Result<Void, any Error>?) -> Void) {
      self.subject = subject
      self.deliver = deliver
    }
  }

  init(
    subject: any Sendable, caller: CallerWork? = nil,
    deliver: @escaping @Sendable (Result<Void, any Error>?) -> Void
  ) {
    self.closure = ClosureDelivery(subject: subject, deliver: deliver)
    self.reference = nil
    self.retained = nil
    self.armed = Atomic(false)
    self.caller = caller
    self.target = nil
  }

  init(target: any SaveResultTarget) {
    self.closure = nil
    self.reference = target
    self.retained = Unmanaged<AnyObject>.passRetained(target)
    self.armed = Atomic(true)
    self.caller = nil
    self.target = ObjectIdentifier(target)
  }

  /// What reports name.
  private var subject: any Sendable {
    if let reference { return reference.saveSubject }
    return closure?.subject ?? "a save"
  }

  private func deliver(_ result: Result<Void, any Error>?) {
    if let reference { return reference.saveFinished(result) }
    closure?.deliver(result)
  }

  func resume(_ result: Result<Void, any Error>) {
    if once.claim(subject: subject) { deliver(result) }
  }

  func supersede() {
    _ = once.claim(subject: subject)
  }

  /// Lets go of the target when the save was resumed; call only while the box's sole holder.
  func disarmIfResumed() -> Bool {
    guard let retained, once.isResumed else { return false }
    armed.store(false, ordering: .relaxed)
    retained.release()
    return true
  }

  /// Makes a recycled box new again for its target's next save; call only while its sole holder.
  func rearm() {
    guard let retained else { return }
    _ = retained.retain()
    once.reset()
    armed.store(true, ordering: .relaxed)
  }

  deinit {
    if let retained {
      guard armed.load(ordering: .relaxed) else { return }
      if once.isDroppedUnresumed(subject: subject) { deliver(nil) }
      retained.release()
    } else if let closure, once.isDroppedUnresumed(subject: closure.subject) {
      closure.deliver(nil)
    }
  }
}

/// What receives a save's result: `nil` when the key dropped the continuation unresumed.
package protocol SaveResultTarget: AnyObject, Sendable {
  func saveFinished(_ result: Result<Void, any Error>?)
  /// What a report about the continuation names: its key.
  var saveSubject: any Sendable { get }
}
