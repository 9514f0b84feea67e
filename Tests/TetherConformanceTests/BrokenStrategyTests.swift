import Foundation
import Synchronization
import Testing
import Tether
import TetherTesting

/// The conformance suite passes a correct strategy cleanly, and fails each broken one with a
/// message naming the rule it broke, not only the symptoms that follow.
@Suite(.tetherBootstrap()) struct BrokenStrategyTests {
  @Test func aCorrectStrategyPassesCleanly() async throws {
    let report = try await Self.run(.none, deadline: StrategyConformance.defaultDeadline)
    #expect(report.skipped.isEmpty)
  }

  @Test(arguments: Flaw.allCases.filter { $0 != .none })
  func aBrokenStrategyFailsNamingTheCause(_ flaw: Flaw) async throws {
    let failures = Failures()
    try await withKnownIssue {
      // Short: every wait of a broken run that is a symptom waits it out.
      try await Self.run(flaw, deadline: .milliseconds(500))
    } matching: { issue in
      failures.add(issue)
      return true
    }
    let messages = failures.messages
    for cause in flaw.causes {
      #expect(
        messages.contains { message in cause.allSatisfy { message.contains($0) } },
        "no failure names \(cause) among \(messages.joined(separator: "\n"))")
    }
    for notCause in flaw.notCauses {
      #expect(
        !messages.contains { $0.contains(notCause) },
        "a failure blames \(notCause): \(messages.joined(separator: "\n"))")
    }
  }

  @discardableResult
  static func run(_ flaw: Flaw, deadline: Duration) async throws -> StrategyConformance.Report {
    let ledger = UUID().uuidString
    return try await StrategyConformance.run(
      FlawedStrategy.self, options: "ledger = \(ledger)\nflaw = \(flaw)",
      externalEdit: { name, value in FlawedStrategy.edit(ledger, name, value) },
      deadline: deadline)
  }
}

extension Flaw {
  /// The failures that name this flaw: each is the fragments one message contains.
  var causes: [[String]] {
    switch self {
    case .none: []
    case .neverResumesLoad:
      [["load continuation of .flawed(", "was never resumed: the key released it unresumed"]]
    case .neverResumesSave:
      [["save continuation of .flawed(", "was never resumed: the key released it unresumed"]]
    case .resumesLoadTwice: [["load continuation of .flawed(", "was resumed twice"]]
    case .resumesSaveTwice: [["save continuation of .flawed(", "was resumed twice"]]
    case .forgetsSaves:
      [
        ["a save with context .userInitiated was never made"],
        ["a save with context .didSet was never made"],
      ]
    case .forgetsDidSetSaves: [["a save with context .didSet was never made"]]
    case .ignoresCancellation:
      [["cancellation: a cancelled subscription of .flawed(", "still yielded"]]
    case .echoesSaves: [["echo: own saves came back as outside edits"]]
    }
  }

  /// What a failure must not blame this flaw on: another flaw.
  var notCauses: [String] {
    switch self {
    case .forgetsDidSetSaves: ["a save with context .userInitiated was never made"]
    case .resumesLoadTwice, .resumesSaveTwice: ["was never resumed"]
    default: []
    }
  }
}

/// The messages of the issues a run recorded.
final class Failures: Sendable {
  private let recorded = Mutex<[String]>([])

  var messages: [String] { recorded.withLock { $0 } }

  func add(_ issue: Issue) {
    let text = issue.comments.map(\.rawValue).joined(separator: " ")
    recorded.withLock { $0.append(text.isEmpty ? "\(issue)" : text) }
  }
}
