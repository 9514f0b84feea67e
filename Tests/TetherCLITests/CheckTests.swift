import Foundation
import Testing
import TetherTesting

@Suite struct CheckTests {
  @Test func theShippedConfigIsValid() async throws {
    let result = try await tether(["check", "--config", shippedConfig])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output.contains("OK"))
  }
}
