import Foundation
import Observation
import Synchronization
public import Testing
public import Tether

/// The suite every persistence strategy passes: Tether's own, and an app's.
///
/// ```swift
/// @Test func conformance() async throws {
///   try await StrategyConformance.run(
///     FileStorageStrategy.self, options: "directory = \(directory.path)",
///     externalEdit: { name, value in
///       try Data("\(value)".utf8).write(to: directory.appending(path: "\(name).json"))
///     })
/// }
/// ```
///
/// It checks that keys for one name share one reference, that the first default wins, that a
/// saved value loads back after every holder is gone, that errors stick until a success, that
/// 1,000 tasks × 10 increments sum to 10,000, that load and save resume exactly once, and, given
/// `externalEdit`, that an edit made outside reaches holders (and Observation) and that a
/// cancelled subscription receives nothing more. A strategy whose keys are `TransactionalKey`s
/// is checked for transactions: mixed with `withLock` they lose nothing, a throwing body
/// writes nothing, and (given `externalEdit`) one reads what is stored, not what is held. One
/// whose keys are `ResettableKey`s is checked for resets: every holder shows its default when
/// `reset()` returns, nothing is stored after it (not even a change made just before), a reset
/// of nothing stored succeeds, and saves (and, given `externalEdit`, outside edits) work again
/// after it. Failures are recorded at `sourceLocation`, each naming the check.
public enum StrategyConformance {
  /// How long each asynchronous check waits: long for a loaded machine. The suite's own tests
  /// of strategies broken on purpose, which never pass, wait less.
  @TaskLocal package static var deadline: Duration = .seconds(30)

  /// Runs every check against `strategy`, in a scope of its own.
  ///
  /// - Parameters:
  ///   - options: the body of the strategy's `[strategy.KIND]` section (`name = value` lines).
  ///   - externalEdit: stores `value` under the key `name` the way another process would; give
  ///     it for strategies that deliver outside changes.
  public static func run(
    _ strategy: any PersistenceStrategy.Type,
    options: String = "",
    externalEdit: (@Sendable (_ name: String, _ value: Int) async throws -> Void)? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    // Bootstrapped as an app would be: every name maps to the strategy. Option lines count the
    // section header as line 1.
    let kind = strategy.kind
    let config = "[strategy.\(kind)]\n\(options)\n[keys]\n* = \(kind)\n"
    try await TetherSystem.withBootstrap(
      configuration: .string(config, origin: "<\(kind) conformance options>"),
      strategies: [strategy]
    ) {
      guard let instance = TetherScope.current.registry?.instances[kind]?.strategy else {
        Issue.record("the registry did not instantiate \(kind)", sourceLocation: sourceLocation)
        return
      }
      let checks = Checks(
        strategy: instance, externalEdit: externalEdit, sourceLocation: sourceLocation)
      try await checks.all()
    }
  }
}

/// The checks, sharing one strategy instance and a run-unique suffix for key names so that
/// stores surviving from an earlier run cannot decide a result.
struct Checks: Sendable {
  let strategy: any PersistenceStrategy
  let externalEdit: (@Sendable (_ name: String, _ value: Int) async throws -> Void)?
  let sourceLocation: SourceLocation
  let suffix = UUID().uuidString.prefix(8).lowercased()

  func all() async throws {
    try registered()
    try sharing()
    try firstDefault()
    try await roundTrip()
    try await optional()
    try await errors()
    try await concurrency()
    try await continuations()
    try await transactions()
    try await resets()
    if externalEdit != nil {
      try await externalChanges()
      try await cancellation()
    }
  }

  func name(_ check: String) -> String { "\(check)_\(suffix)" }

  /// The registered key for `check`, resolved through the bootstrap's config.
  func key(_ check: String) throws -> any SharedKey<Int> {
    RegisteredKey<Int>(name(check))
  }

  /// The registered key for `check`, of another value type.
  func key<Value: Sendable>(_ check: String, as type: Value.Type) -> any SharedKey<Value> {
    RegisteredKey<Value>(name(check))
  }

  /// The strategy's own key for `check`, bypassing the registry.
  func directKey(_ check: String) throws -> any SharedKey<Int> {
    try strategy.key(named: name(check), as: Int.self, options: StrategyOptions())
  }

  func expect(_ condition: Bool, _ comment: Comment) {
    #expect(condition, comment, sourceLocation: sourceLocation)
  }

  func eventually(_ comment: Comment, _ condition: () -> Bool) async {
    await expectEventually(
      timeout: StrategyConformance.deadline, comment, sourceLocation: sourceLocation, condition)
  }

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
    await eventually("round trip: a new holder loads the saved value") { b.wrappedValue == 42 }
    try await b.load()
    expect(b.wrappedValue == 42, "round trip: load() gives the saved value")
    expect(b.loadError == nil, "round trip: a successful load leaves no loadError")
    let required = try await Shared<Int>(require: try key("round-trip"))
    expect(required.wrappedValue == 42, "round trip: require gives the saved value")
    do {
      _ = try await Shared<Int>(require: try key("never-stored"))
      expect(false, "round trip: require of a name never stored must throw")
    } catch {}
  }

  /// An `Optional` value, absent and `nil`. Absent: a holder's default is its value (not
  /// `nil`), and `require` throws. A saved `nil` may be stored as `nil` or as nothing at all,
  /// so what it must do is the same for both: a new holder whose default is `nil` reads `nil`,
  /// never the value the `nil` replaced.
  func optional() async throws {
    do {
      _ = try strategy.key(named: name("optional"), as: Int?.self, options: StrategyOptions())
    } catch TetherError.unsupportedType {
      return
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
      expect(
        false,
        "optional: require of a name never stored must throw (gave \(text(required.wrappedValue)))")
    } catch {}

    for value in [6, nil] as [Int?] {
      do {
        let holder = Shared(wrappedValue: 3, key("optional-nil", as: Int?.self))
        holder.withLock { $0 = value }
        try await holder.save()
        expect(holder.saveError == nil, "optional: saving \(text(value)) succeeds")
      }
      let fresh = Shared<Int?>(key("optional-nil", as: Int?.self))
      await eventually("optional: a new holder loads the saved \(text(value))") {
        fresh.wrappedValue == value
      }
      try await fresh.load()
      expect(
        fresh.wrappedValue == value,
        "optional: load() gives the saved \(text(value)) (found \(text(fresh.wrappedValue)))")
    }
  }

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
    await eventually("errors: the strategy's successful save clears saveError") {
      shared.saveError == nil
    }
    failing.set(loads: true)
    do {
      try await shared.load()
      expect(false, "errors: load() must rethrow the key's error")
    } catch {}
    expect(shared.loadError is InjectedFailure, "errors: a failing load sets loadError")
    failing.set(loads: false)
    try await shared.load()
    expect(shared.loadError == nil, "errors: the strategy's successful load clears loadError")
    expect(shared.wrappedValue == 3, "errors: the value survives failed loads")
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
    expect(counter.wrappedValue == 10_000, "concurrency: 1,000 tasks × 10 increments sum to 10,000")
    try await counter.save()
    let fresh = try await key("concurrency").loadRequired()
    expect(fresh == 10_000, "concurrency: the stored value is 10,000 (found \(fresh))")
  }

  func continuations() async throws {
    let loads = Atomic<Int>(0)
    let saves = Atomic<Int>(0)
    let key = try key("continuations")
    key.save(
      7, context: .userInitiated,
      continuation: SaveContinuation("conformance save") { _ in
        saves.add(1, ordering: .relaxed)
      })
    await eventually("continuations: save resumes its continuation") {
      saves.load(ordering: .relaxed) == 1
    }
    key.load(
      context: .userInitiated,
      continuation: LoadContinuation("conformance load") { _ in loads.add(1, ordering: .relaxed) })
    await eventually("continuations: load resumes its continuation") {
      loads.load(ordering: .relaxed) == 1
    }
  }

  func externalChanges() async throws {
    guard let externalEdit else { return }
    let holder = Shared(wrappedValue: 0, try key("external"))
    try await externalEdit(name("external"), 7)
    await eventually("external: an outside edit reaches a holder") { holder.wrappedValue == 7 }

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
    expect(holder.wrappedValue == 8, "external: the holder has the edited value")
  }

  func cancellation() async throws {
    guard let externalEdit else { return }
    let watched = name("cancel")
    let holder = Shared(wrappedValue: 0, try key("cancel"))
    let received = Mutex<[Int]>([])
    let subscription = try key("cancel").subscribe(
      context: .initialValue(0),
      subscriber: SharedSubscriber { result in
        if case .success(let value?) = result { received.withLock { $0.append(value) } }
      })
    try await externalEdit(watched, 1)
    await eventually("cancellation: a subscription receives an outside edit") {
      received.withLock { $0.contains(1) }
    }
    subscription.cancel()
    try await externalEdit(watched, 2)
    try await externalEdit(watched, 3)
    await eventually("cancellation: the holder still receives edits") { holder.wrappedValue == 3 }
    expect(
      received.withLock { !$0.contains(2) && !$0.contains(3) },
      "cancellation: a cancelled subscription receives nothing more")
  }
}

/// Transactions, for a strategy whose keys are `TransactionalKey`s.
extension Checks {
  struct Refused: Error {}

  func transactions() async throws {
    guard try directKey("transactions") is any TransactionalKey<Int> else { return }
    let counter = Shared(wrappedValue: 0, try key("transactions"))
    try await withThrowingTaskGroup(of: Void.self) { group in
      for task in 0..<20 {
        group.addTask {
          for _ in 0..<5 {
            if task.isMultiple(of: 2) {
              try await counter.transaction { $0 += 1 }
            } else {
              counter.withLock { $0 += 1 }
            }
          }
        }
      }
      try await group.waitForAll()
    }
    expect(
      counter.wrappedValue == 100,
      "transactions: 20 tasks × 5 transactions or withLock increments sum to 100, not \(counter.wrappedValue)"
    )
    do {
      try await counter.transaction { value in
        value = -1
        throw Refused()
      }
      expect(false, "transactions: a throwing body's error comes back")
    } catch is Refused {
      expect(counter.wrappedValue == 100, "transactions: a throwing body changes nothing")
    }
    await TetherSystem.flush()
    try await counter.load()
    expect(
      counter.wrappedValue == 100,
      "transactions: the store holds their sum (100), not \(counter.wrappedValue)")
    guard let externalEdit else { return }
    try await externalEdit(name("transactions"), 40)
    let read = try await counter.transaction { value -> Int in
      value += 1
      return value
    }
    expect(
      read == 41, "transactions: one reads what is stored (40), not what is held; read \(read - 1)")
  }
}
