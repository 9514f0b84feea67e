import Foundation
import Testing
import TetherTesting

@Suite(.timeLimit(.minutes(1))) struct RunChildTests {
  /// A child that writes more to standard error than a pipe holds (64 KiB) before it writes its
  /// output: reading one pipe to its end before the other, it would never finish (its report
  /// would come from the watchdog's SIGTERM after `timeout`).
  @Test func aChildThatFillsStandardErrorBeforeItsOutputFinishes() async throws {
    let result = try await runChild(
      "/bin/sh", ["-c", "yes e | head -c 200000 >&2; echo done"], timeout: .seconds(20))
    #expect(result.status == 0)
    #expect(result.output == "done\n")
    #expect(result.errors.utf8.count == 200_000)
  }

  /// The watchdog ends a child that outlives its timeout even when SIGTERM is ignored or
  /// blocked, as it is in children spawned from dispatch's threads.
  @Test func aChildThatIgnoresSIGTERMIsKilledAtItsTimeout() async throws {
    let result = try await runChild(
      "/bin/sh", ["-c", "trap '' TERM; exec sleep 30"], timeout: .seconds(1))
    #expect(result.status == SIGKILL)
  }

  /// A descendant of the child keeps the child's pipes and the socket by which Foundation learns
  /// that the child ended: the watchdog kills it with the child, or the wait and the reads
  /// would go on as long as it lives (the wait for a child whose crash backtracer hung, under
  /// `make asan`, lasted 35 minutes).
  @Test func aChildsDescendantsAreKilledWithItAtItsTimeout() async throws {
    let start = ContinuousClock.now
    let result = try await runChild(
      "/bin/sh", ["-c", "sleep 120 & exec sleep 120"], timeout: .seconds(1))
    #expect(result.status == SIGKILL)
    // Well before the descendant would end by itself; the margin is for a loaded machine (the
    // whole suite under `make asan` took 30 s to get here).
    #expect(ContinuousClock.now - start < .seconds(100))
  }
}
