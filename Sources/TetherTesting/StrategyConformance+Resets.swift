import Observation
import Synchronization
import Testing
import Tether

/// Resets, for a strategy whose keys are `ResettableKey`s.
extension Checks {
  func resets() async throws {
    guard try directKey("reset") is any ResettableKey<Int> else { return }
    let holder = Shared(wrappedValue: 3, try key("reset"))
    let other = Shared(wrappedValue: 4, try key("reset"))
    holder.withLock { $0 = 42 }
    try await holder.save()
    // A change still waiting for a throttled write when the reset starts.
    holder.withLock { $0 = 43 }
    let observed = Atomic<Bool>(false)
    withObservationTracking {
      _ = other.wrappedValue
    } onChange: {
      observed.store(true, ordering: .relaxed)
    }
    guard await reset(holder, "reset: reset() of a stored value succeeds") else { return }
    expect(
      holder.wrappedValue == 3,
      "reset: the holder shows its default (3) when reset() returns, not \(holder.wrappedValue)")
    expect(
      other.wrappedValue == 3,
      "reset: every holder of the key shows the default (3) when reset() returns, not \(other.wrappedValue)"
    )
    expect(
      observed.load(ordering: .relaxed), "reset: Observation is told before reset() returns")
    expect(holder.saveError == nil, "reset: a reset leaves no saveError")
    expect(holder.loadError == nil, "reset: a reset leaves no loadError")
    await expectNothingStored("reset: after a reset")
    await TetherSystem.flush()
    await expectNothingStored("reset: a change made before the reset is not written after it;")

    let never = Shared(wrappedValue: 5, try key("reset-never-stored"))
    guard await reset(never, "reset: a reset with nothing stored succeeds") else { return }
    expect(
      never.wrappedValue == 5,
      "reset: with nothing stored, the holder keeps its default (5), not \(never.wrappedValue)")
    guard await reset(holder, "reset: a second reset succeeds") else { return }

    holder.withLock { $0 = 8 }
    try await holder.save()
    expect(holder.saveError == nil, "reset: a save after a reset succeeds")
    let stored = try await key("reset").loadRequired()
    expect(stored == 8, "reset: a save after a reset is stored (8), found \(stored)")
    guard let externalEdit else { return }
    _ = await reset(holder, "reset: a reset after a save succeeds")
    try await externalEdit(name("reset"), 9)
    await eventually("reset: an outside edit after a reset reaches the holder") {
      holder.wrappedValue == 9 && other.wrappedValue == 9
    }
  }

  /// Resets `shared`; records `rule` broken, with the error, when it throws.
  private func reset(_ shared: Shared<Int>, _ rule: String) async -> Bool {
    do {
      try await shared.reset()
      return true
    } catch {
      fail("\(rule) (it threw \(error))")
      return false
    }
  }

  /// Checks that the reset key has no stored value: its load, which `Shared(require:)` runs,
  /// finds nothing, so `require` throws `noValue`. (`require` itself joins the live holders,
  /// which show their default whatever is stored.)
  private func expectNothingStored(_ when: String) async {
    do {
      let stored = try await key("reset").loadRequired()
      expect(
        false,
        "\(when) nothing is stored, so Shared(require:) throws noValue (the store holds \(stored))"
      )
    } catch TetherError.noValue {
    } catch {
      fail("\(when) Shared(require:) throws noValue, not \(error)")
    }
  }
}
