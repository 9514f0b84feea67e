import Foundation
import Synchronization
import Testing
import Tether

/// The values a run's delivery check stores, apart from every other run's in the process: a
/// ``DeliveryGate`` is found by its value alone.
private let deliveryValues = Atomic<Int>(0)

/// Delivery: a change a holder makes while an outside edit of its key is being delivered (read
/// from the store, not yet shown by the holder) was made without seeing the edit. Whatever the
/// strategy makes of it — the change written over the edit, or dropped as older — the holder
/// and the store must end on one value: no delivery takes the holder back to the edit once the
/// store has the change. A `save()` of the change says which it was: it returns once the change
/// is stored, and throws when the store dropped it.
extension Checks {
  /// How many times the check tries to make its change while the edit's delivery is held: a
  /// loaded machine can run the suite's task only after the hold has ended.
  private static let deliveryRounds = 3

  /// How the delivery check's holder makes its change while the edit's delivery is held.
  enum DeliveryChange: Sendable {
    /// `withLock` alone, which hands the change to the key's `save` (context `.didSet`).
    case withLock
    /// `withLock`, then `save()` (the key's `save` with context `.userInitiated`), whose
    /// outcome the caller is told.
    case save

    /// The check's name, starting each of its failures.
    var check: String { self == .withLock ? "delivery" : "delivery save" }
    /// What names the check's key.
    fileprivate var keyLabel: String { self == .withLock ? "delivery" : "deliverySave" }
  }

  func delivery(_ how: DeliveryChange) async throws {
    guard let externalEdit else { return }
    let check = how.check
    let key: any SharedKey<GatedNumber>
    do {
      key = try directKey(how.keyLabel, as: GatedNumber.self)
    } catch let error as TetherError {
      if case .unsupportedType = error {
        return findings.leaveUnchecked(
          "\(check): the strategy does not store its value type: \(error)")
      }
      return fail("\(check): key(named:as:) threw \(error)")
    }
    let holder = Shared(
      wrappedValue: GatedNumber(rawValue: 0), self.key(how.keyLabel, as: GatedNumber.self))
    for _ in 0..<Self.deliveryRounds {
      let base = 1_000_000_000 + deliveryValues.add(1, ordering: .relaxed).newValue * 100
      holder.withLock { $0 = GatedNumber(rawValue: base + 1) }
      try await holder.save()
      let round = DeliveryRound(
        key: key, holder: holder, base: base, how: how, name: name(how.keyLabel))
      switch try await run(round, externalEdit) {
      case .madeWhileHeld, .failed: return
      case .madeAfterwards: continue
      case .neverReached:
        return findings.leaveUnchecked(
          """
          \(check): an outside edit stored as an Int never reached a holder of another Codable \
          type (GatedNumber, one Int) of the same name, within \(deadline): the strategy keeps \
          each type's values apart
          """)
      }
    }
    findings.leaveUnchecked(
      """
      \(check): in \(Self.deliveryRounds) tries, the holder's change came only after the \
      outside edit's delivery had been held for 300 ms: the machine is too loaded for the check
      """)
  }

  /// Edits the key to `base + 7`, holding the edit's decoding (at most 300 ms, then it goes on
  /// by itself), and meanwhile changes the holder to `base + 2` with `withLock` (which hands the
  /// change to the key's `save`), and saves it with `save()` when the round says so; then
  /// expects the holder and the store to settle on one value — the change's when `save()`
  /// returned, another when it threw — and a change made after that to be saved.
  ///
  /// The change is made on a thread of its own as soon as the decoding is held, and the
  /// `save()` on a task started there: the suite's own task may run only after the delivery.
  private func run(
    _ round: DeliveryRound,
    _ externalEdit: @Sendable (_ name: String, _ value: Int) async throws -> Void
  ) async throws -> DeliveryRound.Outcome {
    let (check, holder) = (round.how.check, round.holder)
    let (edit, change, later) = (round.base + 7, round.base + 2, round.base + 8)
    let progress = DeliveryRound.Cell()
    let gate = DeliveryGate(at: edit) { gate in
      holder.withLock { $0 = GatedNumber(rawValue: change) }
      guard round.how == .save else {
        let held = !gate.hasLetGo
        return progress.state.withLock { $0 = .changed(whileHeld: held) }
      }
      // The key's `save` is called before `save()` first suspends.
      Task {
        let held = !gate.hasLetGo
        progress.state.withLock { $0 = .saving(whileHeld: held) }
        let saved: Result<Void, any Error>
        do {
          saved = .success(try await holder.save())
        } catch {
          saved = .failure(error)
        }
        progress.state.withLock { $0 = .saved(whileHeld: held, saved) }
      }
    }
    try await externalEdit(round.name, edit)
    // Subscriptions are checked with `Int` keys: one of another type that never sees the edit
    // is kept apart, and the check cannot be made.
    _ = await staysTrue(for: deadline) { !progress.state.withLock { $0.isDone } }
    let (whileHeld, saved): (Bool, Result<Void, any Error>?)
    switch progress.state.withLock({ $0 }) {
    case .waiting:
      gate.disarm()
      return .neverReached
    case .saving(let held):
      gate.open()
      fail(
        """
        \(check): save() of a change (\(change)) made \(held ? "while" : "after") an outside \
        edit (\(edit)) was being delivered did not return within \(deadline)
        """)
      return .failed
    case .changed(let held): (whileHeld, saved) = (held, nil)
    case .saved(let held, let result): (whileHeld, saved) = (held, result)
    }
    gate.open()

    // The store's value, as a load of the strategy's key gives it, and the holder's agree.
    let stored = await settled(round.key, holder, check)
    let shown = holder.wrappedValue.rawValue
    guard stored == shown else {
      fail(
        """
        \(check): after a change (\(change)) made while an outside edit (\(edit)) was being \
        delivered, the store held \(stored.map(String.init) ?? "nothing") and the holder showed \
        \(shown), for \(deadline): a delivery must not take a holder off a change the store \
        took after the delivered value (nor may the store take a change it then drops)
        """)
      return .failed
    }
    // And it is the change's if its save returned, another if it threw.
    switch saved {
    case .success? where stored != change:
      fail(
        """
        \(check): save() of a change (\(change)) made while an outside edit (\(edit)) was \
        being delivered returned, yet the store holds \(stored.map(String.init) ?? "nothing"): \
        a save that returns has stored its value; one the store drops for the edit must throw \
        (TetherError.conflict)
        """)
      return .failed
    case .failure(let error)? where stored == change:
      fail(
        """
        \(check): save() of a change (\(change)) made while an outside edit (\(edit)) was \
        being delivered threw \(error), yet the store holds the change: a save that throws \
        has stored nothing
        """)
      return .failed
    case .success?, .failure?, nil: break
    }

    // Once the holder shows the store's value, a change it makes is written.
    holder.withLock { $0 = GatedNumber(rawValue: later) }
    do {
      try await holder.save()
    } catch {
      fail(
        """
        \(check): a change (\(later)) made once the holder showed the store's value \
        (\(shown)) must be saved: save() threw \(error)
        """)
      return .failed
    }
    let last = await settled(round.key, holder, check)
    guard last == later else {
      fail(
        "\(check): save() of a change (\(later)) returned, yet the store holds \(last.map(String.init) ?? "nothing")"
      )
      return .failed
    }
    return whileHeld ? .madeWhileHeld : .madeAfterwards
  }

  /// The value a load of `key` gives once it is the holder's, or the last one loaded at the
  /// deadline.
  private func settled(
    _ key: any SharedKey<GatedNumber>, _ holder: Shared<GatedNumber>, _ check: String
  ) async -> Int? {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: deadline)
    var stored: Int?
    repeat {
      switch await probeLoad(key, check) {
      case .resumed(.success(let loaded)): stored = loaded?.rawValue
      case .resumed(.failure(let error)):
        fail("\(check): a load of \(String(describing: key)) threw \(error)")
        return nil
      case .released, .pending: return nil  // recorded by the probe
      }
      if stored == holder.wrappedValue.rawValue { return stored }
      do {
        try await Task.sleep(for: .milliseconds(5))
      } catch {
        return stored
      }
    } while clock.now < end
    return stored
  }
}

/// One round of the delivery check: its key, holder and values, and how the change is made.
private struct DeliveryRound: Sendable {
  let key: any SharedKey<GatedNumber>
  let holder: Shared<GatedNumber>
  /// The round's values start here, apart from every other round's.
  let base: Int
  let how: Checks.DeliveryChange
  /// The key's name, under which the outside edit is made.
  let name: String

  /// How a round went.
  enum Outcome {
    /// The change was made while the edit's delivery was held: the check was made.
    case madeWhileHeld
    /// The hold had ended when the change was made: nothing was found, nor could be.
    case madeAfterwards
    /// The edit was never decoded as the holder's type.
    case neverReached
    /// A failure was recorded.
    case failed
  }

  /// The round's ``Progress``, shared with the thread and task that make the change.
  final class Cell: Sendable {
    let state = Mutex(Progress.waiting)
  }

  /// Where the change stands, as the thread (or task) making it says.
  enum Progress: Sendable {
    /// The edit's decoding has not reached the gate.
    case waiting
    /// Made with `withLock`, while the decoding was held or after.
    case changed(whileHeld: Bool)
    /// Its `save()` has started, and not returned.
    case saving(whileHeld: Bool)
    /// Its `save()` returned or threw.
    case saved(whileHeld: Bool, Result<Void, any Error>)

    var isDone: Bool {
      switch self {
      case .changed, .saved: true
      case .waiting, .saving: false
      }
    }
  }
}
