import Foundation
import Logging
public import Testing
public import Tether
import TetherLogging

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
/// The suite bootstraps the strategy as an app would (`* = KIND`, with `options` as its section)
/// and runs each check on names of its own, so that one check's failure never decides another's:
/// every check runs, and a check that fails or throws records an issue at `sourceLocation` and
/// lets the next one run. Each failure names the rule the strategy broke and what it did
/// instead, starting with the check's name (`continuations:`, `values Int:`, `echo:` …).
///
/// What it checks:
/// - **Continuations**, by calling the keys' `load` and `save` directly with continuations the
///   suite makes and counts: each must be resumed exactly once within `deadline`. A key that
///   drops one fails "save continuation of .mine("x") (Int, context .didSet) was never resumed:
///   the key released it unresumed"; one resumed again fails "… resumed twice".
/// - **Values** of `Int`, `String`, `Int?`, a `Codable` struct and an `[Int]` of about 100 KB:
///   nothing stored loads as "nothing stored"; a value saved with context `.userInitiated`, then
///   one with `.didSet`, each loads back (a save whose continuation resumed but whose value
///   never reaches the store fails "a save with context .didSet was never made"); a stored `nil`
///   loads as `nil`, not as "nothing stored"; a new `@Shared` holder loads what was saved. A type
///   the strategy throws `TetherError.unsupportedType` for is skipped, and named in the
///   returned ``Report`` and in a log message: a skip is not a failure.
/// - **Sharing**: `.registered(name)` and the strategy's own key for `name` are one reference;
///   two keys for one name share one value; the first holder's default wins.
/// - **Round trip and errors**: a saved value loads back after every holder is gone, `require`
///   throws when nothing is stored, and `saveError`/`loadError` stick until a success.
/// - **Concurrency**: 1,000 tasks × 10 `withLock` increments sum to 10,000, and that is stored.
/// - **Subscriptions**, given `externalEdit`: an outside edit reaches holders and Observation; a
///   cancelled subscription yields nothing more; this process's own saves are not delivered
///   back as outside edits (without `externalEdit`, only echoes that arrive within a short
///   window are caught).
/// - **Delivery**, given `externalEdit`: a holder changes its value with `withLock` while an
///   outside edit of its key is being delivered (the edit's decoding held for a moment, through
///   a value type whose decoding the suite controls): the store may take the change or drop it,
///   but the holder and the store must then hold one value, and a change made once the holder
///   shows the store's value is saved. Then again with the change saved with `save()` inside
///   the hold (**delivery save**): a save that returns must have stored the change, and one
///   that throws must have stored nothing. A strategy meets both by delivering through
///   `SharedSubscriber.give(_:seen:)` (see its documentation). The hold lasts 300 ms at most
///   (its thread may be one every key of the strategy delivers on): a change that comes later
///   is tried again, up to 3 times. A strategy whose keys of that type never see an edit
///   stored as an `Int` (it keeps each type's values apart) is not checked, and the ``Report``
///   says so.
/// - **Transactions**, when the keys are `TransactionalKey`s, and **resets**, when they are
///   `ResettableKey`s.
///
/// The checks come in two parts: the read part (loading and subscriptions) and the write part
/// (everything that saves). A `ReadOnlyPersistenceStrategy` runs the read part, and a check that
/// holders of its keys keep changes in memory with `saveError` `TetherError.readOnly`.
///
/// - Parameters:
///   - strategy: the strategy type, as handed to `TetherSystem.bootstrap`.
///   - options: the body of the strategy's `[strategy.KIND]` section (`name = value` lines).
///   - externalEdit: stores `value` under the key `name` the way another process would; give it
///     for strategies that deliver outside changes, so that `subscribe` is checked.
///   - deadline: how long each asynchronous expectation waits (a continuation's resume, a
///     throttled write, an outside edit's delivery). A correct strategy's run takes no longer
///     for a longer deadline; only failures wait it out.
///   - sourceLocation: where failures are recorded.
/// - Returns: what was skipped, and how long the run took.
/// - Throws: only what bootstrapping the strategy with `options` throws (an invalid option);
///   every check's failure is a recorded issue instead.
public enum StrategyConformance {
  /// The default of `run`'s `deadline`: a few seconds, generous for a loaded machine, since a
  /// correct strategy never waits it out.
  public static let defaultDeadline: Duration = .seconds(5)

  /// Runs every check against `strategy`, in a scope of its own: see ``StrategyConformance``.
  @discardableResult
  public static func run(
    _ strategy: any PersistenceStrategy.Type,
    options: String = "",
    externalEdit: (@Sendable (_ name: String, _ value: Int) async throws -> Void)? = nil,
    deadline: Duration = defaultDeadline,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> Report {
    let started = ContinuousClock.now
    // Bootstrapped as an app would be: every name maps to the strategy. Option lines count the
    // section header as line 1.
    let kind = strategy.kind
    let config = "[strategy.\(kind)]\n\(options)\n[keys]\n* = \(kind)\n"
    let findings = Findings()
    try await TetherSystem.withBootstrap(
      configuration: .string(config, origin: "<\(kind) conformance options>"),
      strategies: [strategy]
    ) {
      guard let instance = TetherScope.current.registry?.instances[kind]?.strategy else {
        Issue.record("the registry did not instantiate \(kind)", sourceLocation: sourceLocation)
        return
      }
      let checks = Checks(
        strategy: instance, externalEdit: externalEdit, deadline: deadline,
        sourceLocation: sourceLocation, findings: findings)
      await checks.readPart()
      // A strategy that only reads runs the read part, and holders of its keys must keep
      // changes in memory and say why they are not saved.
      if instance is any ReadOnlyPersistenceStrategy {
        await checks.isolated("read only") { try await checks.readOnlyHolders() }
      } else {
        await checks.writePart()
      }
      await checks.reportRepeatedResumes()
    }
    let report = Report(
      kind: kind, skipped: findings.skipped, unchecked: findings.unchecked,
      duration: ContinuousClock.now - started)
    let logger = TetherLog.logger("tether.conformance")
    for skip in report.skipped {
      logger.notice("\(kind): skipped \(skip.type): \(skip.reason)")
    }
    for why in report.unchecked {
      logger.notice("\(kind): not checked: \(why)")
    }
    return report
  }

  /// What a run did besides recording failures.
  public struct Report: Sendable, CustomStringConvertible {
    /// The strategy's kind.
    public let kind: String
    /// The value types the strategy does not store, whose checks were skipped.
    public let skipped: [SkippedType]
    /// The checks that could not be made against the strategy, each with why (the delivery
    /// check, for a strategy that keeps each value type's values apart, or on a machine too
    /// loaded to make its change in time): not failures.
    public let unchecked: [String]
    /// How long the run took.
    public let duration: Duration

    /// "file conformance: 2.1 seconds; skipped ConformanceRecord (…)", then what was not
    /// checked.
    public var description: String {
      let skips = skipped.map { "\($0.type) (\($0.reason))" }.joined(separator: ", ")
      return "\(kind) conformance: \(duration)" + (skips.isEmpty ? "" : "; skipped \(skips)")
        + unchecked.map { "; not checked: \($0)" }.joined()
    }
  }

  /// A value type a run skipped, because the strategy throws `TetherError.unsupportedType` for
  /// it.
  public struct SkippedType: Sendable, Equatable {
    /// The type's name, as the suite calls it (`Int?`, `ConformanceRecord`, `[Int] (100 KB)`).
    public let type: String
    /// The strategy's error, rendered.
    public let reason: String
  }
}
