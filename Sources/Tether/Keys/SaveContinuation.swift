/// What a key's `save` resumes, exactly once, from any thread.
///
/// The same rules as ``LoadContinuation``: a continuation never resumed or resumed twice is
/// reported, and the caller awaiting it goes on.
public struct SaveContinuation: Sendable {
  private let box: SaveBox

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

  /// A continuation that hands its result to `deliver` (`nil` when dropped unresumed), and
  /// calls `repeated` each time it is resumed again (the later result still ignored): the
  /// conformance suite's probe, which fails a key that resumes twice.
  package init(
    subject: any Sendable,
    deliver: @escaping @Sendable (Result<Void, any Error>?) -> Void,
    repeated: @escaping @Sendable () -> Void
  ) {
    self.box = SaveBox(subject: subject, deliver: deliver, repeated: repeated)
  }

  /// A continuation that reports to `target`, which it keeps alive until then and which names
  /// the key in diagnostics.
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

/// The object whose life is the continuation's: it delivers once, or `nil` when dropped.
private final class SaveBox: Sendable {
  private let once = ResumeOnce(operation: "save")
  private let delivery: Delivery
  let caller: CallerWork?
  let target: ObjectIdentifier?
  private let repeated: (@Sendable () -> Void)?

  /// Where the result goes: a closure, or a shared value (one per change, so no closure is made).
  private enum Delivery: Sendable {
    case closure(subject: any Sendable, (@Sendable (Result<Void, any Error>?) -> Void))
    case target(any SaveResultTarget)
  }

  init(
    subject: any Sendable, caller: CallerWork? = nil,
    deliver: @escaping @Sendable (Result<Void, any Error>?) -> Void,
    repeated: (@Sendable () -> Void)? = nil
  ) {
    self.delivery = .closure(subject: subject, deliver)
    self.caller = caller
    self.target = nil
    self.repeated = repeated
  }

  init(target: any SaveResultTarget) {
    self.delivery = .target(target)
    self.caller = nil
    self.target = ObjectIdentifier(target)
    self.repeated = nil
  }

  /// What reports name.
  private var subject: any Sendable {
    switch delivery {
    case .closure(let subject, _): return subject
    case .target(let target): return target.saveSubject
    }
  }

  private func deliver(_ result: Result<Void, any Error>?) {
    switch delivery {
    case .closure(_, let deliver): deliver(result)
    case .target(let target): target.saveFinished(result)
    }
  }

  func resume(_ result: Result<Void, any Error>) {
    if once.claim(subject: subject) { deliver(result) } else { repeated?() }
  }

  func supersede() {
    _ = once.claim(subject: subject)
  }

  deinit {
    if once.isDroppedUnresumed(subject: subject) { deliver(nil) }
  }
}

/// What receives a save's result: `nil` when the key dropped the continuation unresumed.
package protocol SaveResultTarget: AnyObject, Sendable {
  func saveFinished(_ result: Result<Void, any Error>?)
  /// What a report about the continuation names: its key.
  var saveSubject: any Sendable { get }
}
