import Foundation
import Synchronization
import Testing
import Tether
import TetherTesting

/// What the conformance suite found in a flawed variant of the journal example, run over a
/// journal file of its own in `folder`: each failure's text, and the report (`nil` when the run
/// threw). Failures are expected, and recorded as known issues (intermittent: on a machine too
/// loaded for a delivery check, the check is not made, and the report says so).
func conformanceFindings(
  of strategy: any PersistenceStrategy.Type, in folder: URL
) async throws -> (failures: [String], report: StrategyConformance.Report?) {
  let file = folder.appending(path: "flawed.journal")
  let messages = Mutex<[String]>([])
  let report = Mutex<StrategyConformance.Report?>(nil)
  try await withKnownIssue(isIntermittent: true) {
    let made = try await StrategyConformance.run(
      strategy, options: "file = \(file.path)",
      externalEdit: { name, value in
        try Journal(file: file).append(Journal.tag(name), json: Data("\(value)".utf8))
      },
      // The failing check waits this out; the journal's poll may wait for the cooperative
      // pool of a loaded suite.
      deadline: .seconds(10))
    report.withLock { $0 = made }
  } matching: { issue in
    messages.withLock { $0.append(issue.comments.map(\.rawValue).joined(separator: " ")) }
    return true
  }
  return (messages.withLock { $0 }, report.withLock { $0 })
}

extension JournalStrategy {
  /// The journal's own key for `name`, for a flawed variant to wrap; as `key(named:as:options:)`
  /// does, it refuses a value type the journal cannot store, naming `kind`.
  func journalKey<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions, kind: String
  ) throws -> JournalKey<Value> {
    guard let key = try key(named: name, as: type, options: options) as? JournalKey<Value> else {
      throw TetherError.unsupportedType("\(type)", key: name, kind: kind)
    }
    return key
  }
}
