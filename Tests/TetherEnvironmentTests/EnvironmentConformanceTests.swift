import Foundation
import Testing
import TetherEnvironment
import TetherTesting

/// The environment strategy against the conformance suite: a read-only strategy runs its read
/// part. Without `externalEdit`: variables do not change from outside a process, so there is no
/// delivery for the suite to expect.
@Suite struct EnvironmentConformanceTests {
  @Test func theEnvironmentStrategyPassesTheReadPart() async throws {
    let prefix = "TETHER_CONFORMANCE_\(UUID().uuidString.prefix(8))_"
      .replacingOccurrences(of: "-", with: "_")
    let report = try await StrategyConformance.run(
      EnvironmentStrategy.self, options: "prefix = \(prefix)")
    #expect(report.kind == "environment")
  }
}
