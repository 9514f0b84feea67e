import Foundation
import Testing
import Tether
import TetherInMemory
import TetherTesting

/// A read never waits for another reference's `withLock`: reading any keys inside `withLock`,
/// in opposite orders on two threads, neither deadlocks nor aborts (it once stopped the process
/// with "Recursive call to lock Mutex", the kernel's report of the A–B/B–A wait).
@Suite(.tetherBootstrap(), .timeLimit(.minutes(2))) struct CrossKeyReadTests {
  @Test func readingTheOtherKeyInsideWithLockInOppositeOrdersNeitherDeadlocksNorAborts()
    async throws
  {
    try await Self.oppositeOrders()
  }

  private static func oppositeOrders() async throws {
    try await isolated {
      // Fresh pairs, so that reads inside `withLock` are also each value's first read (which
      // makes its Observation registrar), and many of them.
      let pairs = 2_000
      let a = (0..<pairs).map { Shared(wrappedValue: 0, .inMemory("a\($0)")) }
      let b = (0..<pairs).map { Shared(wrappedValue: 0, .inMemory("b\($0)")) }
      let total = Shared(wrappedValue: 0, .inMemory("total"))
      // Plain threads, so that they really run at once.
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let left = DispatchGroup()
        for index in 0..<3 {
          left.enter()
          Thread {
            for pair in 0..<pairs {
              for _ in 0..<5 {
                switch index {
                case 0: a[pair].withLock { $0 = b[pair].wrappedValue + 1 }
                case 1: b[pair].withLock { $0 = a[pair].wrappedValue + 1 }
                default:
                  total.withLock {
                    $0 =
                      a[pair].wrappedValue + b[pair].wrappedValue
                      + (a[pair].loadError == nil ? 0 : 1)
                  }
                }
              }
            }
            left.leave()
          }.start()
        }
        left.notify(queue: .global()) { done.resume() }
      }
      #expect(a.allSatisfy { $0.wrappedValue > 0 } && b.allSatisfy { $0.wrappedValue > 0 })
    }
  }
}
