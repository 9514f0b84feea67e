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
      let a = Shared(wrappedValue: 0, .inMemory("a"))
      let b = Shared(wrappedValue: 0, .inMemory("b"))
      let total = Shared(wrappedValue: 0, .inMemory("total"))
      let rounds = 20_000
      // Plain threads, so that the two really run at once.
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let left = DispatchGroup()
        for index in 0..<3 {
          left.enter()
          Thread {
            for _ in 0..<rounds {
              switch index {
              case 0: a.withLock { $0 = b.wrappedValue + 1 }
              case 1: b.withLock { $0 = a.wrappedValue + 1 }
              default:
                total.withLock {
                  $0 = a.wrappedValue + b.wrappedValue + (a.loadError == nil ? 0 : 1)
                }
              }
            }
            left.leave()
          }.start()
        }
        left.notify(queue: .global()) { done.resume() }
      }
      #expect(a.wrappedValue > 0 && b.wrappedValue > 0)
      #expect(total.wrappedValue > 0)
    }
  }
}
