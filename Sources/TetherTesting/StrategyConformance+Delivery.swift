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
/// store has the change.
extension Checks {
  /// How many times the check tries to make its change while the edit's delivery is held: a
  /// loaded machine can run the suite's task only after the hold has ended.
  private static let deliveryRounds = 3

  func delivery() async throws {
    guard let externalEdit else { return }
    let check = "delivery"
    let key: any SharedKey<GatedNumber>
    do {
      key = try directKey(check, as: GatedNumber.self)
    } catch let error as TetherError {
      if case .unsupportedType = error {
        return findings.leaveUnchecked(
          "\(check): the strategy does not store its value type: \(error)")
      }
      return fail("\(check): key(named:as:) threw \(error)")
    }
    let holder = Shared(
      wrappedValue: GatedNumber(rawValue: 0), self.key(check, as: GatedNumber.self))
    for _ in 0..<Self.deliveryRounds {
      let base = 1_000_000_000 + deliveryValues.add(1, ordering: .relaxed).newValue * 100
      holder.withLock { $0 = GatedNumber(rawValue: base + 1) }
      try await holder.save()
      switch try await deliveryRound(key, holder, base: base, externalEdit) {
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

  /// How a round of the delivery check went.
  private enum DeliveryRound {
    /// The change was made while the edit's delivery was held: the check was made.
    case madeWhileHeld
    /// The hold had ended when the change was made: nothing was found, nor could be.
    case madeAfterwards
    /// The edit was never decoded as the holder's type.
    case neverReached
    /// A failure was recorded.
    case failed
  }

  /// Edits the key to `base + 7`, holding the edit's decoding (at most 300 ms, then it goes on
  /// by itself), and meanwhile changes the holder to `base + 2` with `withLock` (which hands the
  /// change to the key's `save`); then expects the holder and the store to settle on one value,
  /// and a change made after that to be saved.
  ///
  /// The change is not saved with `save()` inside the hold: the suite's task may run it only
  /// after the delivery, when it saves whatever the holder shows then.
  private func deliveryRound(
    _ key: any SharedKey<GatedNumber>, _ holder: Shared<GatedNumber>, base: Int,
    _ externalEdit: @Sendable (_ name: String, _ value: Int) async throws -> Void
  ) async throws -> DeliveryRound {
    let check = "delivery"
    let (edit, change, later) = (base + 7, base + 2, base + 8)
    // The change is made on a thread of its own as soon as the edit's decoding is held; `nil`
    // until then, then whether the decoding was still held when the change was made.
    let changedWhileHeld = Mutex<Bool?>(nil)
    let gate = DeliveryGate(at: edit) { gate in
      holder.withLock { $0 = GatedNumber(rawValue: change) }
      let held = !gate.hasLetGo
      changedWhileHeld.withLock { $0 = held }
    }
    try await externalEdit(name(check), edit)
    // Subscriptions are checked with `Int` keys: one of another type that never sees the edit
    // is kept apart, and the check cannot be made.
    _ = await staysTrue(for: deadline) { changedWhileHeld.withLock { $0 } == nil }
    guard let whileHeld = changedWhileHeld.withLock({ $0 }) else {
      gate.disarm()
      return .neverReached
    }
    gate.open()

    // The store's value, as a load of the strategy's key gives it, and the holder's agree.
    let stored = await settled(key, holder, check)
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
    let last = await settled(key, holder, check)
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
