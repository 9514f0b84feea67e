import Foundation
import Testing
import Tether
import TetherTestHelperSupport
import TetherTesting

/// The conformance suite passes a correct strategy and reports bad options; the strategies it
/// fails are in TetherConformanceTests.
@Suite(.tetherBootstrap()) struct StrategyConformanceTests {
  @Test func aCorrectStrategyWithExternalEditsPasses() async throws {
    let ledger = UUID().uuidString
    try await StrategyConformance.run(
      LedgerStrategy.self, options: "ledger = \(ledger)",
      externalEdit: { name, value in
        Ledger.named(ledger).storage(name, of: Int.self).externalChange(value)
      })
  }

  @Test func badOptionsAreReportedWithTheirLine() async throws {
    let error = await #expect(throws: TetherError.self) {
      try await StrategyConformance.run(LedgerStrategy.self, options: "\n[not allowed")
    }
    // Every error of the config is thrown at once: the line that does not parse first, then
    // the ledger it leaves the strategy without.
    #expect(
      error?.all.map(\.description) == [
        #"<ledger conformance options>:3: expected "]" to close the section header"#,
        #"<ledger conformance options>: option "ledger": is required"#,
      ])
  }
}
