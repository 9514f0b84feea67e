import Synchronization
import Testing
import Tether

/// The values a run's delivery check stores, apart from every other run's in the process: a
/// ``DeliveryGate`` is found by its value alone.
private let deliveryValues = Atomic<Int>(0)

/// Delivery: a change a holder makes while an outside edit of its key is being delivered (read
/// from the store, not yet shown by the holder) was made without seeing the edit. Whatever the
/// strategy makes of it — the change written over the edit, or refused with an error — the
/// holder and the store must end on one value: a `save()` that returns has stored the change,
/// and no delivery after it takes the holder back to the edit.
extension Checks {
  func delivery() async throws {
    guard let externalEdit else { return }
    let check = "delivery"
    let base = 1_000_000_000 + deliveryValues.add(1, ordering: .relaxed).newValue * 100
    let (first, edit, change, later) = (base + 1, base + 7, base + 2, base + 8)
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
      wrappedValue: GatedNumber(rawValue: first), self.key(check, as: GatedNumber.self))
    try await holder.save()

    // The edit's decoding waits at the gate (at most 300 ms, then goes on by itself): the
    // holder's change is made meanwhile.
    let gate = DeliveryGate(at: edit)
    try await externalEdit(name(check), edit)
    // Subscriptions are checked with `Int` keys: one of another type that never sees the edit
    // is kept apart, and the check cannot be made.
    guard await reached(gate) else {
      gate.disarm()
      return findings.leaveUnchecked(
        """
        \(check): an outside edit stored as an Int never reached a holder of another Codable \
        type (GatedNumber, one Int) of the same name, within \(deadline): the strategy keeps \
        each type's values apart
        """)
    }
    holder.withLock { $0 = GatedNumber(rawValue: change) }
    let saveOutcome: String
    let saved: Bool
    do {
      try await holder.save()
      (saved, saveOutcome) = (true, "save() returned")
    } catch {
      (saved, saveOutcome) = (false, "save() threw \(error)")
    }
    gate.open()

    // The store's value, as a load of the strategy's key gives it, and the holder's agree.
    let stored = await settled(key, holder, check)
    let shown = holder.wrappedValue.rawValue
    expect(
      stored == shown,
      """
      \(check): a change (\(change)) saved while an outside edit (\(edit)) was being delivered: \
      \(saveOutcome), then the store held \(stored.map(String.init) ?? "nothing") and the holder \
      showed \(shown), for \(deadline): a delivery must not take a holder off what its own \
      save stored (or a save that cannot stand must throw)
      """)
    if saved {
      expect(
        stored == change,
        """
        \(check): save() of a change (\(change)) made while an outside edit (\(edit)) was being \
        delivered returned, yet the store holds \(stored.map(String.init) ?? "nothing")
        """)
    }

    // Once the holder shows the store's value, a change it makes is written.
    holder.withLock { $0 = GatedNumber(rawValue: later) }
    do {
      try await holder.save()
    } catch {
      return fail(
        """
        \(check): a change (\(later)) made once the holder showed the store's value \
        (\(shown)) must be saved: save() threw \(error)
        """)
    }
    let last = await settled(key, holder, check)
    expect(
      last == later,
      "\(check): save() of a change (\(later)) returned, yet the store holds \(last.map(String.init) ?? "nothing")"
    )
  }

  /// Whether a decoding reaches `gate` within the deadline.
  private func reached(_ gate: DeliveryGate) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: deadline)
    while !gate.isHolding {
      guard clock.now < end else { return false }
      do {
        try await Task.sleep(for: .milliseconds(2))
      } catch {
        return false
      }
    }
    return true
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
