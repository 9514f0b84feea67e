import Testing
import Tether

/// The checks made through `@Shared` holders, as an app uses a strategy.
extension Checks {
  func registered() throws {
    let viaRegistry = Shared(wrappedValue: 0, try key("registered"))
    expect(
      viaRegistry.loadError == nil,
      "registered: the key resolves (\(viaRegistry.loadError.map { "\($0)" } ?? ""))")
    let direct = Shared(wrappedValue: 1, try directKey("registered"))
    direct.withLock { $0 = 9 }
    expect(
      viaRegistry.wrappedValue == 9,
      "registered: .registered(name) and the strategy's key for it are one reference")
  }

  func sharing() throws {
    let a = Shared(wrappedValue: 0, try directKey("sharing"))
    let b = Shared(wrappedValue: 0, try directKey("sharing"))
    a.withLock { $0 = 5 }
    expect(b.wrappedValue == 5, "sharing: two keys for one name share one reference")
    let other = Shared(wrappedValue: 0, try key("sharing-other"))
    expect(other.wrappedValue == 0, "sharing: a different name is a different value")
    expect(
      a.description.contains(String(describing: try directKey("sharing"))),
      "sharing: Shared.description names the key (\(a.description))")
  }

  func firstDefault() throws {
    let first = Shared(wrappedValue: 1, try key("default"))
    let second = Shared(wrappedValue: 2, try key("default"))
    let reader = SharedReader(wrappedValue: 3, try key("default"))
    expect(second.wrappedValue == 1, "first default: a later default does not overwrite")
    expect(reader.wrappedValue == 1, "first default: a reader sees the first default")
    withExtendedLifetime(first) {}
  }

  func roundTrip() async throws {
    do {
      let a = Shared(wrappedValue: 0, try key("round-trip"))
      a.withLock { $0 = 42 }
      try await a.save()
      expect(a.saveError == nil, "round trip: a successful save leaves no saveError")
    }
    let b = Shared(wrappedValue: 0, try key("round-trip"))
    await eventually("round trip: a new holder loads the saved value (42), not \(b.wrappedValue)") {
      b.wrappedValue == 42
    }
    try await b.load()
    expect(
      b.wrappedValue == 42, "round trip: load() gives the saved value (42), not \(b.wrappedValue)")
    expect(b.loadError == nil, "round trip: a successful load leaves no loadError")
    do {
      let required = try await Shared<Int>(require: try key("round-trip"))
      expect(required.wrappedValue == 42, "round trip: require gives the saved value")
    } catch {
      fail("round trip: require of a saved value throws \(error)")
    }
    do {
      let found = try await Shared<Int>(require: try key("never-stored"))
      fail("round trip: require of a name never stored must throw, not give \(found.wrappedValue)")
    } catch {}
  }

  /// An `Optional` value through holders, absent and `nil`. Absent: a holder's default is its
  /// value (not `nil`), and `require` throws. A stored `nil` is a value: a new holder whose
  /// default is 3 reads `nil`, never its default or the value the `nil` replaced.
  func optional() async throws {
    do {
      _ = try directKey("optional", as: Int?.self)
    } catch TetherError.unsupportedType {
      return  // named by the values check
    }
    func text(_ value: Int?) -> String { value.map(String.init) ?? "nil" }
    let absent = Shared(wrappedValue: 4, key("optional-absent", as: Int?.self))
    try await absent.load()
    expect(
      absent.wrappedValue == 4,
      "optional: with nothing stored, the default is the value (found \(text(absent.wrappedValue)))"
    )
    do {
      let required = try await Shared<Int?>(require: key("optional-never-stored", as: Int?.self))
      fail(
        "optional: require of a name never stored must throw (gave \(text(required.wrappedValue)))")
    } catch {}

    for value in [6, nil] as [Int?] {
      do {
        let holder = Shared(wrappedValue: 3, key("optional-nil", as: Int?.self))
        holder.withLock { $0 = value }
        try await holder.save()
        expect(holder.saveError == nil, "optional: saving \(text(value)) succeeds")
      }
      let fresh = Shared<Int?>(wrappedValue: 3, key("optional-nil", as: Int?.self))
      await eventually(
        "optional: a new holder (default 3) loads the saved \(text(value)), not \(text(fresh.wrappedValue))"
      ) {
        fresh.wrappedValue == value
      }
      try await fresh.load()
      expect(
        fresh.wrappedValue == value,
        "optional: load() gives the saved \(text(value)) (found \(text(fresh.wrappedValue)))")
    }
  }

  /// Errors stick until a success. The value is saved explicitly before the loads, so that a
  /// strategy forgetting `.didSet` saves fails where that is checked, not here.
  func errors() async throws {
    let failing = FailureSwitch()
    let shared = Shared(wrappedValue: 0, FlakyKey(base: try key("errors"), failing: failing))
    failing.set(saves: true)
    shared.withLock { $0 = 1 }
    expect(shared.saveError is InjectedFailure, "errors: a failing save sets saveError")
    shared.withLock { $0 = 2 }
    expect(shared.saveError is InjectedFailure, "errors: saveError sticks while saves fail")
    failing.set(saves: false)
    shared.withLock { $0 = 3 }
    try await shared.save()
    await eventually("errors: the strategy's successful save clears saveError") {
      shared.saveError == nil
    }
    failing.set(loads: true)
    do {
      try await shared.load()
      fail("errors: load() must rethrow the key's error")
    } catch {}
    expect(shared.loadError is InjectedFailure, "errors: a failing load sets loadError")
    failing.set(loads: false)
    try await shared.load()
    expect(shared.loadError == nil, "errors: the strategy's successful load clears loadError")
    expect(
      shared.wrappedValue == 3,
      "errors: the value (3) survives failed loads, not \(shared.wrappedValue)")
  }

  func concurrency() async throws {
    let counter = Shared(wrappedValue: 0, try key("concurrency"))
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<1000 {
        group.addTask {
          for _ in 0..<10 { counter.withLock { $0 += 1 } }
        }
      }
    }
    expect(
      counter.wrappedValue == 10_000,
      "concurrency: 1,000 tasks × 10 increments sum to 10,000, not \(counter.wrappedValue)")
    try await counter.save()
    let fresh = try await key("concurrency").loadRequired()
    expect(fresh == 10_000, "concurrency: the stored value is 10,000 (found \(fresh))")
  }
}
